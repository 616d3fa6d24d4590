"""Every intrinsic of the table has a code-generation lowering."""
from __future__ import annotations

import os

from compiler.codegen.lower import LOWER, missing
from compiler.intrinsics import TABLE

os.environ["EA_DEBUG"] = "1"


def test_every_intrinsic_has_a_lowering():
    assert missing() == []


def test_no_lowering_without_an_intrinsic():
    assert sorted(set(LOWER) - set(TABLE)) == []
