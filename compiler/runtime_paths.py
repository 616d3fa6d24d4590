"""Machine code that picks one of several paths when it runs: a stream_store
that tests its address, a loop LLVM vectorised behind a test that the
arrays do not overlap, a masked load with a branch per lane. Code
generation records its own (compiler/codegen/ntloop.py,
compiler/codegen/lower/memaccess.py); `ea inspect` finds LLVM's in the
optimised module and the machine code (compiler/inspect/runtime.py) and
lists them all, each with its condition. No LLVM here: a plain record."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RuntimePath:
    line: int | None
    what: str  # the construct: "stream_store(out, ...)", "the loop at lines 3-5"
    condition: str  # what the machine code tests
    paths: tuple[tuple[str, str], ...]  # (when, what runs), the fast path first
    decided: str  # how often: "once per loop (9 versions of the main loop)", "at each store"
    source: str = "codegen"  # "codegen" (Eä's lowering) or "llvm"
    loop_versions: int = 0  # copies of the enclosing loop made for this choice (0: tested in place)
    summary: str = ""  # the paths in a few words, for hints
    # Which copy of a versioned loop `ea inspect` calls the main loop: "nontemporal"
    # (the aligned copy, codegen/ntloop.py) or "plain" (the copy as written, codegen/ntauto.py).
    main_copy: str = "nontemporal"
    # codegen/ntauto.py: (bytes from which the stores stream, bytes stored per trip, elements per
    # trip, whether the streaming loop may start with a peel to the output's alignment)
    stream: tuple[int, int, int, bool] = ()

    @property
    def text(self) -> str:
        """`stream_store(out, ...) tests the address of out mod 32: 0 -> ...; ... (once per loop ...)`"""
        cases = "; ".join(f"{when}: {does}" for when, does in self.paths)
        return f"{self.what} tests {self.condition} \u2014 {cases} ({self.decided})"

    def to_json(self) -> dict:
        return {"line": self.line, "what": self.what, "condition": self.condition,
                "paths": [{"when": w, "runs": d} for w, d in self.paths], "decided": self.decided,
                "source": self.source, "loop_versions": self.loop_versions, "summary": self.summary, "text": self.text,
                **({"main_copy": self.main_copy,
                    "stream": dict(zip(("threshold_bytes", "trip_bytes", "step", "peeled"), self.stream))} if self.stream else {})}
