"""The compiler's version (pyproject.toml's): part of the loader's cache key,
printed by `ea --version` and recorded in benchmark results."""
__version__ = "0.1.0"
