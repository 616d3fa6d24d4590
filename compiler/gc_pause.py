"""`gc_paused()`: pause the cyclic garbage collector while building many small
objects. The trees and tables the compiler and the tools build are acyclic;
without the pause, the collector's repeated full scans of every live object
dominate the time on big files (3x on analysis).

On leaving, the objects made during the pause are moved to the oldest
generation (`gc.freeze` then `gc.unfreeze`: two list splices) before the
collector is enabled again. Left in the youngest generation, they would all
be scanned by the first young collection after the pause, and again on their
way to the oldest generation: about a sixth of `analyze()` on a 1,000-line
file, spent finding no cycles."""
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
            gc.freeze()
            gc.unfreeze()
            gc.enable()
