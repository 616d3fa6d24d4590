"""Whether two variants compile to the same machine code: then timing them
against each other can only measure noise, so the gate does not."""
from __future__ import annotations

import re
from pathlib import Path

from ..options import Options

# Lines that say where code came from, not what it is: source positions, CFI, comments, debug labels.
_NOT_CODE = re.compile(r"^\s*(\.loc|\.file|\.cfi_|#|\.Ltmp\d+:|\.Lfunc_end\d+:|\.ident)")


def machine_code(path: str, options: Options) -> str | None:
    """The assembly of the code sections, without debug information; None if it does not compile."""
    from ..build import compile_source
    _, module = compile_source(Path(path).read_bytes(), path, options)
    if module is None:
        return None
    code = []
    for line in module.asm().splitlines():
        if line.lstrip().startswith(".section") and ".debug" in line:
            break  # the debug sections come last
        if not _NOT_CODE.match(line):
            code.append(line.split("#", 1)[0].rstrip())
    return "\n".join(code)


def same_machine_code(candidate: str, incumbent: str, options: Options) -> bool:
    a = machine_code(candidate, options)
    return a is not None and a == machine_code(incumbent, options)
