"""Which data-movement engine issues each DRAM transfer: a convention of the per-core programs that
the model prices and the per-core split follows (so it sits below both).

A Tensix core has two data-movement RISC-Vs, each driving its own NoC. Stores go to the writer.
Loads of one pipe stage alternate between the reader and the writer, as TT-Metalium's matmul
kernels do (in0 on one, in1 on the other), so two operands stream concurrently.
"""

from __future__ import annotations


def load_engine(position: int, reads_back: bool = False) -> str:
    """Engine of the `position`-th DRAM load (0-based) of a pipe stage; a load of a tensor the kernel also
    stores (`reads_back`: a core reading back its own blocks) goes to the writer, behind those stores."""
    if reads_back:
        return "writer"
    return "reader" if position % 2 == 0 else "writer"
