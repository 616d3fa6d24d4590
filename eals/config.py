"""Server settings: from initializationOptions and
workspace/didChangeConfiguration (`{"ea": {...}}` or the bare object)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ea_compiler import Options

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

    def updated(self, settings, problems: list[str] | None = None) -> "Config":
        """A copy with `settings` applied; invalid values are skipped and
        described in `problems`."""
        problems = problems if problems is not None else []
        if not isinstance(settings, dict):
            return self
        settings = settings.get("ea", settings)
        if not isinstance(settings, dict):
            return self
        changes = {}
        for key, kind in (("target_cpu", str), ("avx512", bool), ("opt_level", int)):
            for spelling in (key, _camel(key)):
                if spelling not in settings:
                    continue
                value = settings[spelling]
                if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
                    changes[key] = value
                else:
                    problems.append(f"setting '{spelling}' must be a {kind.__name__}, got {value!r}")
        for spelling in ("target_triple", "targetTriple"):
            if spelling in settings:
                changes["target_triple"] = settings[spelling] or None
        for spelling in ("inlay_hints", "inlayHints"):
            if settings.get(spelling) in INLAY_LEVELS:
                changes["inlay_hints"] = settings[spelling]
        if changes.get("opt_level", 3) not in (0, 1, 2, 3):
            problems.append(f"setting 'opt_level' must be 0, 1, 2 or 3, got {changes.pop('opt_level')!r}")
        return replace(self, **changes)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)
