"""How a generated Python or PyTorch module finds its shared library: the
environment override `EA_LIBRARY_<STEM>` if set, else the first that exists
of the path the metadata records, `lib<stem>.so` and `<stem>.so` beside the
module — so a rebuild under the other name (`ea k.ea --lib -o k.so`) still
loads. Nothing found is an OSError listing every path tried and the command
that builds the library."""
from __future__ import annotations

import re

from .meta import Api

RUNTIME = '''

def _load_library(env, candidates, build):
    """The kernel library: $<env> when set, else the first candidate that exists."""
    if _os.environ.get(env):
        candidates = [_Path(_os.environ[env])]
    for path in candidates:
        if path.is_file():
            return _ct.CDLL(str(path))
    tried = ", ".join(str(p) for p in candidates)
    raise OSError(f"cannot find the Ea library of {__name__} (tried {tried}); build it with "
                  f"`{build}` or set {env} to its path")
'''


def env_name(stem: str) -> str:
    return "EA_LIBRARY_" + re.sub(r"\W", "_", stem).upper()


def candidates(api: Api) -> list[str]:
    """Python expressions of the paths to try, the metadata's first."""
    if api.library.startswith("/"):
        first = f"_Path({api.library!r})"
    else:
        first = "_HERE / " + " / ".join(f"{seg!r}" for seg in api.library.split("/") if seg)
    out = [first]
    for name in (f"lib{api.stem}.so", f"{api.stem}.so"):
        expr = f"_HERE / {name!r}"
        if expr not in out:
            out.append(expr)
    return out


def loading_lines(api: Api, source: str | None) -> list[str]:
    """`_HERE = ...` and the `_lib = _load_library(...)` statement."""
    build = f"ea {source or api.stem + '.ea'} --lib"
    items = "".join(f"        {c},\n" for c in candidates(api))
    return ["_HERE = _Path(__file__).parent",
            f"_lib = _load_library(\n    {env_name(api.stem)!r},\n    [\n{items}    ],\n    {build!r},\n)"]
