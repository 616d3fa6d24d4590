"""The `.ea.json` metadata written with `--lib` (TOOLCHAIN.md §3), in the
reference writer's exact layout: 2-space indent, one object per export,
args on one line. Extensions, after `"return_type"`: `"min_lengths"` for
a kernel whose loop variable indexes some of its arrays (`extents.py`), and
`"parallel"` for an export that may be split into chunks (`parallel.py`).
The exports listed are those the library defines (the build passes them):
an export of another architecture's `#[cfg]` is not in it, so not listed."""
from __future__ import annotations

import json

from ..syntax import ast as A
from .extents import min_lengths
from .parallel import parallel_plan


def _arg(p: A.Param) -> dict:
    return {"name": p.name, "type": A.type_text(p.type), "direction": "out" if p.out else "in",
            "cap": p.cap.text if p.cap else None, "count": p.count.text if p.count else None}


def metadata_text(library: str, program: A.Program, decisions, names: list[str] | None = None) -> str:
    """`decisions`: the checker's (which function each call calls); with `names`, only those
    exports: the ones the library defines."""
    exports = [f for f in program.items if isinstance(f, A.Func) and f.export and (names is None or f.name in names)]
    structs = [s for s in program.items if isinstance(s, A.StructDecl)]
    dump = json.dumps
    lines = ["{", f'  "library": {dump(library)},']
    if exports:
        lines.append('  "exports": [')
        for k, f in enumerate(exports):
            args = ", ".join(dump(_arg(p)) for p in f.params)
            ret = dump(A.type_text(f.ret)) if f.ret is not None else "null"
            lines += ["    {", f'      "name": {dump(f.name)},', f'      "args": [{args}],']
            fields = [f'"return_type": {ret}']
            extents = min_lengths(f)
            if extents:  # extension (README, "Metadata"): arrays provably indexed up to a bound
                fields.append(f'"min_lengths": {dump(extents)}')
            plan = parallel_plan(f, program, decisions)
            if plan:  # extension: how the export may be split into chunks
                fields.append(f'"parallel": {dump(plan)}')
            lines += [f"      {x}," for x in fields[:-1]] + [f"      {fields[-1]}"]
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
