"""How a generated Python or PyTorch module gets its shared library, and
what it checks before defining anything.

Finding it: the environment override `EA_LIBRARY_<STEM>` if set, else the
first that exists of the path the metadata records and `<stem>.so` beside
the module — so a library rebuilt under the default name still loads.
Nothing found is an OSError listing every path tried and the command that
builds the library.

Checking it: every function the metadata lists must be a symbol of the
library (one built from another version of the source, or bound against
other metadata, lacks some): otherwise an ImportError names the library,
the symbol, the metadata and the command that rebuilds both."""
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
            return _ct.CDLL(str(path.absolute()))  # dlopen searches the system for a bare name
    tried = ", ".join(str(p) for p in candidates)
    raise OSError(f"cannot find the Ea library of {__name__} (tried {tried}); build it with "
                  f"`{build}` or set {env} to its path")
'''

REQUIRE = '''

def _require(lib, names, metadata, build):
    """Every function `metadata` lists is a symbol of `lib`."""
    for name in names:
        if not hasattr(lib, name):
            raise ImportError(f"{getattr(lib, '_name', 'the Ea library')} has no symbol {name!r} that "
                              f"{metadata} lists; recompile with: {build}")
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
    default = f"_HERE / {api.stem + '.so'!r}"
    if default not in out:
        out.append(default)
    return out


def _build(api: Api, source: str | None) -> str:
    return f"ea {source or api.stem + '.ea'} --lib"


def loading_lines(api: Api, source: str | None) -> list[str]:
    """`_HERE = ...` and the `_lib = _load_library(...)` statement."""
    items = "".join(f"        {c},\n" for c in candidates(api))
    build = _build(api, source)
    return ["_HERE = _Path(__file__).parent",
            f"_lib = _load_library(\n    {env_name(api.stem)!r},\n    [\n{items}    ],\n    {build!r},\n)"]


def require_lines(api: Api, source: str | None) -> list[str]:
    """The `_require(_lib, ...)` statement: after `_lib`, before any use of it."""
    metadata = f"{source or api.stem + '.ea'}.json"
    names = [e.name for e in api.exports]
    return [f"_require(_lib, {names!r}, {metadata!r}, {_build(api, source)!r})"]
