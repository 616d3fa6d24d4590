"""The predicted half of a predicted-vs-measured pair: the model's cycles
per main-loop iteration (compiler/inspect/predict) at the working set each
measurement had, and the limit it says binds there."""
from __future__ import annotations

from .cycles import CycleMeasurement

_LEVELS = ("L1", "L2", "L3", "DRAM")


def limit_text(limit: str) -> str:
    """`L2` -> `L2 bandwidth`; ports, latency, calls as they are."""
    return f"{limit} bandwidth" if limit in _LEVELS else limit


def running_loop(fn, index: int, row: CycleMeasurement) -> int:
    """The loop a call of `row`'s size runs instead of loop `index` (the main
    loop as written): the streaming copy when the call stores enough
    (codegen/ntauto.py) — the copy with full-width non-temporal stores where the
    output is vector-aligned (arrays on a cache line, or a loop peeled to
    alignment), the one with 16-byte pieces at NumPy's 16 bytes past a line."""
    auto = next((p for p in fn.runtime_paths if p.stream), None)
    if auto is None or fn.loops[index].role != "main":
        return index
    threshold, trip_bytes, step, peeled = auto.stream
    if row.n * trip_bytes < threshold * step:
        return index
    copies = [k for k, lp in enumerate(fn.loops) if lp.role == "copy" and lp.nontemporal]
    if not copies:
        return index
    aligned = peeled or row.alignment >= 32
    pick = min if aligned else max
    return pick(copies, key=lambda k: (fn.loops[k].per_iteration.stores, k))


def fill_prediction(rows: list[CycleMeasurement], analysis, module, function: str, index: int, fn=None) -> None:
    """Set `predicted`, `limit` and `predicted_by` of each measured row of `function`'s loop
    number `index` (0-based, in inspect's order; `analysis, module` =
    ea_compiler.build.compile_source of the kernel measured), at the row's working set and
    the alignment its arrays had; with `fn` (its inspect report), of the loop the row's call
    runs (`running_loop`)."""
    from ..inspect import predict_function
    for row in rows:
        try:
            fp = predict_function(analysis, module, function, working_set_bytes=row.working_set,
                                  alignment=row.alignment)
        except KeyError:
            return
        if index >= len(fp.loops):
            return
        k = running_loop(fn, index, row) if fn is not None else index
        if k != index:
            row.note = "; ".join(filter(None, [row.note, "predicted for the streaming copy (codegen/ntauto.py)"]))
        main = fp.loops[k]
        row.predicted = main.cycles_per_iter
        row.limit = limit_text(main.limit.value)
        row.predicted_by = "rough" if main.rough else main.model
