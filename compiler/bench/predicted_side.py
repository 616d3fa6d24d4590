"""The predicted half of a predicted-vs-measured pair: the model's cycles per
main-loop iteration for a working set. Until the calibrated model
(compiler/predict) is present this is today's rough inspect estimate, the
largest of its memory/compute/latency cycles, marked "rough"."""
from __future__ import annotations

from ..inspect.model import FunctionReport
from .cycles import CycleMeasurement


def fill_prediction(rows: list[CycleMeasurement], fn: FunctionReport) -> None:
    """Set `predicted`, `limit` and `predicted_by` of each measured row of `fn`'s main loop."""
    loop = fn.main_loop
    if loop is None or not loop.cycles:
        return
    for row in rows:
        limit, cycles = max(loop.cycles.items(), key=lambda kv: kv[1])
        row.predicted, row.limit, row.predicted_by = cycles, limit, "rough"
