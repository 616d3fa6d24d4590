"""`gc_paused()`: pause the cyclic garbage collector while building many small
objects. The trees and tables the compiler and the tools build are acyclic;
without the pause, the collector's repeated full scans of every live object
dominate the time on big files (3x on analysis)."""
from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def gc_paused():
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
