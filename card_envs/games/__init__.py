"""One package per game: engine kernels, the `Game` spec, the heuristic policy."""
