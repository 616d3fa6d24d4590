"""The server's kept diagnostic conversions (eals/convert.ConvertedDiagnostics)
give what converting every diagnostic again gives, after edits that move
lines, move columns on a line, and add or remove diagnostics; and they are
reused for the functions an edit did not touch."""
from __future__ import annotations

import random

from ea_compiler import AnalysisSession

from eals.convert import ConvertedDiagnostics, to_diagnostic

URI = "file:///tmp/c.ea"
FUNC = "func f{k}(a: i32) -> i32 {{\n    let v: f32x4 = 1 // é\n    return a + 1.5\n}}\n"


def test_kept_conversions_match_and_are_reused():
    rnd = random.Random(5)
    data = "".join(FUNC.format(k=k) for k in range(30)).encode()
    session, kept = AnalysisSession("c.ea"), ConvertedDiagnostics()
    reused = 0
    for step in range(60):
        a = session.update(data)
        before = {id(x[2]) for x in kept._kept.values()}
        got = kept.convert(a.diagnostics, a.source, URI)
        assert got == [to_diagnostic(d, a.source, URI) for d in a.diagnostics], step
        reused += sum(id(x) in before for x in got)
        at = rnd.choice([m for m in range(len(data)) if data.startswith(b"    return", m)])
        edit = rnd.choice([b"    let q: i32 = 1.5\n", b"  ", b"        // \xc3\xa9\n"])
        data = data[:at] + edit + data[at:]  # a line (lines move) or blanks before `return` (its columns move)
    assert session.incremental_updates > 40
    assert reused > 1000  # most diagnostics are converted once
