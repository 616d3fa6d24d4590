"""The user guide (docs/) stays true: the generated intrinsic pages match
the compiler's table, every ```ea block in the guide (the generated pages'
examples included) compiles with the real `ea` — or, when marked as a
deliberate mistake, gives the diagnostics printed after it — and every link
between the pages resolves.

Block markers (the words after ```ea on the fence line):
  (none)           compiles with `ea`, and `ea check` reports no error and no warning
  allow-warnings   compiles; warnings are not checked (kernels shown without a tail)
  error            `ea check` fails; the next ``` block lists lines of its output
  warning          `ea check` passes with warnings; the next ``` block lists lines of its output
  flags=A,B        target options for both commands, e.g. flags=--target-triple=aarch64-unknown-linux-gnu
Every block is checked as a file named k.ea, so expected output says `k.ea:LINE:COL`.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EA = ROOT / ".venv" / "bin" / "ea"
FENCE = re.compile(r"^```(\S*)(.*)$")


def _generator():
    spec = importlib.util.spec_from_file_location("gen_intrinsics", DOCS / "gen_intrinsics.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


# ---- generated intrinsic reference ------------------------------------------

def test_intrinsic_pages_match_the_table():
    gen = _generator()
    problems = gen.stale(gen.render())
    assert not problems, (f"docs/intrinsics is out of date ({', '.join(problems)}): "
                          f"run .venv/bin/python docs/gen_intrinsics.py and commit the result")


def test_every_intrinsic_is_on_its_family_page():
    gen = _generator()
    from ea_compiler.intrinsics import TABLE
    for name, intr in TABLE.items():
        page = (DOCS / "intrinsics" / f"{gen.slug(intr.family)}.md").read_text(encoding="utf-8")
        assert f"| `{name}` |" in page, name
        for sig in intr.signatures:
            assert gen._md(name + sig) in page, (name, sig)


def test_check_mode_reports_a_stale_page(tmp_path, monkeypatch):
    gen = _generator()
    monkeypatch.setattr(gen, "OUT", tmp_path)
    pages = gen.render()
    for name, text in pages.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert gen.stale(pages) == []
    (tmp_path / "memory.md").write_text("edited by hand\n", encoding="utf-8")
    (tmp_path / "old-family.md").write_text("no longer generated\n", encoding="utf-8")
    assert gen.stale(pages) == ["memory.md", "old-family.md"]


# ---- Eä code blocks of the guide --------------------------------------------

@dataclass
class Block:
    file: str
    line: int
    code: str
    mode: str              # "ok", "allow-warnings", "error", "warning"
    flags: list[str]
    expected: list[str]    # lines the diagnostics must contain (error/warning)

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"


def _blocks_of(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    fences: list[tuple[int, str, str, list[str]]] = []   # (line, lang, attrs, body)
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang, attrs = i, m.group(1), m.group(2).strip()
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        fences.append((start + 1, lang, attrs, body))
        i += 1
    blocks = []
    rel = str(path.relative_to(ROOT))
    for n, (line, lang, attrs, body) in enumerate(fences):
        if lang != "ea":
            continue
        words = attrs.split()
        flags = [f for w in words if w.startswith("flags=") for f in w[len("flags="):].split(",")]
        modes = [w for w in words if not w.startswith("flags=")]
        assert len(modes) <= 1 and set(modes) <= {"allow-warnings", "error", "warning"}, \
            f"{rel}:{line}: unknown block marker {attrs!r}"
        mode = modes[0] if modes else "ok"
        expected: list[str] = []
        if mode in ("error", "warning"):
            assert n + 1 < len(fences) and fences[n + 1][1] != "ea", \
                f"{rel}:{line}: an `ea {mode}` block must be followed by its expected output"
            expected = [ln for ln in fences[n + 1][3] if ln.strip()]
        blocks.append(Block(rel, line, "\n".join(body) + "\n", mode, flags, expected))
    return blocks


def _guide_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


ALL_BLOCKS = [b for page in _guide_pages() for b in _blocks_of(page)]


def test_the_guide_has_examples_of_every_kind():
    modes = {b.mode for b in ALL_BLOCKS}
    assert {"ok", "error", "warning"} <= modes
    assert len(ALL_BLOCKS) >= 30


def _ea(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(EA), *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, NO_COLOR="1"))


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=[b.id for b in ALL_BLOCKS])
def test_guide_block(block: Block, tmp_path: Path):
    (tmp_path / "k.ea").write_text(block.code, encoding="utf-8")
    check = _ea(["check", "k.ea", *block.flags], tmp_path)
    report = check.stdout + check.stderr
    summary = re.search(r"checked 1 file: (\d+) errors?, (\d+) warnings?", report)
    assert summary, report
    errors, warnings = int(summary.group(1)), int(summary.group(2))
    if block.mode == "error":
        assert errors > 0, f"{block.id}: expected an error, got:\n{report}"
    elif block.mode == "warning":
        assert errors == 0 and warnings > 0, f"{block.id}: expected only warnings, got:\n{report}"
    else:
        assert errors == 0, f"{block.id}: does not compile:\n{report}"
        if block.mode == "ok":
            assert warnings == 0, f"{block.id}: unexpected warnings:\n{report}"
        built = _ea(["k.ea", *block.flags], tmp_path)
        assert built.returncode == 0 and (tmp_path / "k.o").exists(), \
            f"{block.id}: `ea k.ea` failed:\n{built.stderr}"
    for line in block.expected:
        assert line in report.splitlines(), f"{block.id}: missing line {line!r} in:\n{report}"


# ---- links between the pages -------------------------------------------------

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {_anchor(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, flags=re.M)}


def test_anchor_rule():
    assert _anchor("How wide is `load`?") == "how-wide-is-load"
    assert _anchor("`ea inspect`") == "ea-inspect"


@pytest.mark.parametrize("page", sorted(DOCS.rglob("*.md")), ids=lambda p: str(p.relative_to(DOCS)))
def test_links_resolve(page: Path):
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.relative_to(ROOT)}: broken link {target}"
        assert dest.resolve().is_relative_to(DOCS), f"{page.relative_to(ROOT)}: {target} leaves docs/"
        if anchor:
            assert anchor in _anchors(dest), f"{page.relative_to(ROOT)}: no heading for #{anchor} in {path}"
