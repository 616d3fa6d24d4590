"""bench/reference_bench.py's parts: fetch the reference compiler, build both libraries and call them, compare."""
