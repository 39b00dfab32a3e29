"""The test bench: simulated tables played through the product's pipeline and scored against the simulator's
truth (``demo``, ``bench``), and each part's own benchmarks and evaluations. Nothing in the product imports it."""
