"""Server settings: from initializationOptions and
workspace/didChangeConfiguration (`{"ea": {...}}` or the bare object)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from compiler import Options

INLAY_LEVELS = ("off", "functions", "lines")


@dataclass(frozen=True)
class Config:
    target_cpu: str = "native"
    target_triple: str | None = None
    avx512: bool = False
    opt_level: int = 3
    inlay_hints: str = "functions"

    def options(self) -> Options:
        return Options(target_cpu=self.target_cpu, target_triple=self.target_triple, avx512=self.avx512,
                       opt_level=self.opt_level)

    def updated(self, settings) -> "Config":
        if not isinstance(settings, dict):
            return self
        settings = settings.get("ea", settings)
        if not isinstance(settings, dict):
            return self
        changes = {}
        for key, cast in (("target_cpu", str), ("avx512", bool), ("opt_level", int)):
            for spelling in (key, _camel(key)):
                if spelling in settings:
                    changes[key] = cast(settings[spelling])
        for spelling in ("target_triple", "targetTriple"):
            if spelling in settings:
                changes["target_triple"] = settings[spelling] or None
        for spelling in ("inlay_hints", "inlayHints"):
            if settings.get(spelling) in INLAY_LEVELS:
                changes["inlay_hints"] = settings[spelling]
        if changes.get("opt_level", 3) not in (0, 1, 2, 3):
            changes.pop("opt_level")
        return replace(self, **changes)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)
