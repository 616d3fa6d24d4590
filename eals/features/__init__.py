"""LSP features, one module per area. Each module has `register(server)`."""
from __future__ import annotations

import importlib
import pkgutil


def register_all(server) -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(server)
