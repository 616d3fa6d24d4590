"""The predicted half of a predicted-vs-measured pair: the model's cycles
per main-loop iteration (compiler/inspect/predict) at the working set each
measurement had, and the limit it says binds there."""
from __future__ import annotations

from .cycles import CycleMeasurement

_LEVELS = ("L1", "L2", "L3", "DRAM")


def limit_text(limit: str) -> str:
    """`L2` -> `L2 bandwidth`; ports, latency, calls as they are."""
    return f"{limit} bandwidth" if limit in _LEVELS else limit


def fill_prediction(rows: list[CycleMeasurement], analysis, module, function: str, index: int) -> None:
    """Set `predicted`, `limit` and `predicted_by` of each measured row of `function`'s loop
    number `index` (0-based, in inspect's order; `analysis, module` =
    ea_compiler.build.compile_source of the kernel measured), at the row's working set and
    the alignment its arrays had."""
    from ..inspect import predict_function
    for row in rows:
        try:
            fp = predict_function(analysis, module, function, working_set_bytes=row.working_set,
                                  alignment=row.alignment)
        except KeyError:
            return
        if index >= len(fp.loops):
            return
        main = fp.loops[index]
        row.predicted = main.cycles_per_iter
        row.limit = limit_text(main.limit.value)
        row.predicted_by = "rough" if main.rough else main.model
