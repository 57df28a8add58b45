"""Stage 6: solve each candidate's problem (CP-SAT lives in `cpsat`, the only module importing OR-Tools)."""
