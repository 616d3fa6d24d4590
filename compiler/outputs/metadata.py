"""The `.ea.json` metadata written with `--lib` (TOOLCHAIN.md §3), in the
reference writer's exact layout: 2-space indent, one object per export,
args on one line. Extensions after `"return_type"`, each on one line, for
an export with pointer parameters (`bounds/`; README, "Metadata"):
- `"min_lengths"`: {pointer: parameter} for the extents that are one
  parameter (the field older bindings read), when there is one;
- `"extents"`: {pointer: text} — the elements each pointer the code touches
  needs, in the parameters (`"n"`, `"n + 2"`, `"h * w"`, `"max(n, 1)"`);
- `"extent_terms"`: the same structured: per pointer a list of polynomials
  (the extent is the largest of them and 0), each a list of
  `[coefficient, name, name, ...]` terms (`n * n + 2` is `[[1, "n", "n"], [2]]`);
- `"unchecked"`: {pointer: reason} for the pointers whose extent is not
  provable, when there is one;
- `"index_limits"`: {pointer: [{"index": polynomial, "max": integer, "type":
  name}]} for the values its indices are computed from that a call could
  take past their integer type (`bounds/limits.py`), when there is one;
  `"min"` in place of `"max"` for one that could go below it.
A pointer in neither `extents` nor `unchecked` is never touched. Then
`"parallel"` for an export that may be split into chunks (`parallel.py`).
The exports listed are those the library defines (the build passes them):
an export of another architecture's `#[cfg]` is not in it, so not listed."""
from __future__ import annotations

import json

from ..syntax import ast as A
from .bounds import export_bounds
from .parallel import parallel_plan


def _arg(p: A.Param) -> dict:
    return {"name": p.name, "type": A.type_text(p.type), "direction": "out" if p.out else "in",
            "cap": p.cap.text if p.cap else None, "count": p.count.text if p.count else None}


def metadata_text(library: str, program: A.Program, decisions=None, names: list[str] | None = None) -> str:
    """`decisions`: the checker's record of each call's callee (without it,
    calls are resolved by name); with `names`, only those exports: the ones
    the library defines (`build.metadata` passes the items it compiled)."""
    exports = [f for f in program.items if isinstance(f, A.Func) and f.export and (names is None or f.name in names)]
    structs = [s for s in program.items if isinstance(s, A.StructDecl)]
    bounds = {id(f): b for f, b in export_bounds(program, decisions)}  # each variant its own
    dump = json.dumps
    lines = ["{", f'  "library": {dump(library)},']
    if exports:
        lines.append('  "exports": [')
        for k, f in enumerate(exports):
            args = ", ".join(dump(_arg(p)) for p in f.params)
            ret = dump(A.type_text(f.ret)) if f.ret is not None else "null"
            lines += ["    {", f'      "name": {dump(f.name)},', f'      "args": [{args}],']
            fields = [f'      "return_type": {ret}']
            b = bounds.get(id(f))
            if b is not None and any(isinstance(p.type, A.PointerType) for p in f.params):
                if b.min_lengths:
                    fields.append(f'      "min_lengths": {dump(b.min_lengths)}')
                fields.append(f'      "extents": {dump({p: e.text() for p, e in b.extents.items()})}')
                fields.append(f'      "extent_terms": {dump({p: e.to_json() for p, e in b.extents.items()})}')
                if b.unchecked:
                    fields.append(f'      "unchecked": {dump(b.unchecked)}')
                if b.index_limits:
                    limits = {p: [lim.to_json() for lim in found] for p, found in b.index_limits.items()}
                    fields.append(f'      "index_limits": {dump(limits)}')
            plan = parallel_plan(f, program, decisions)
            if plan:  # extension: how the export may be split into chunks
                fields.append(f'      "parallel": {dump(plan)}')
            lines.append(",\n".join(fields))
            lines.append("    }" + ("," if k + 1 < len(exports) else ""))
        lines.append("  ],")
    else:
        lines += ['  "exports": [', "  ],"]
    if structs:
        lines.append('  "structs": [')
        for k, s in enumerate(structs):
            fields = ", ".join(dump({"name": f.name, "type": A.type_text(f.type)}) for f in s.fields)
            lines += ["    {", f'      "name": {dump(s.name)},', f'      "fields": [{fields}]',
                      "    }" + ("," if k + 1 < len(structs) else "")]
        lines.append("  ]")
    else:
        lines += ['  "structs": [', "  ]"]
    lines.append("}")
    return "\n".join(lines) + "\n"
