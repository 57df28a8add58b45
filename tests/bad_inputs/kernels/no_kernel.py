"""A kernel file that forgot the @helion.kernel decorator."""
import torch


def scale(x: torch.Tensor) -> torch.Tensor:
    return x * 2.0


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)
