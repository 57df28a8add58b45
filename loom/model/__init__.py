"""Stage 5: candidate -> latency expression and legality constraints (`expr` is the tree they are written in)."""
