"""A user function may be named like a C library function the generated code
itself calls (println -> printf): a private one is renamed in the IR and both
work; an exported one would replace the C library's for the whole program, so
a file that also needs the C library's function gets a clear error, not an
internal compiler error."""
from __future__ import annotations

import subprocess

from .harness import ea

SRC = """\
func printf(x: i32) -> i32 {
    return x + 40
}
export func main() -> i32 {
    println(3)
    return printf(2)
}
"""


def test_private_function_named_printf_and_println(tmp_path):
    (tmp_path / "p.ea").write_text(SRC)
    built = ea("p.ea", "-o", "prog", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    run = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, timeout=30)
    assert (run.stdout, run.returncode) == ("3\n", 42)


def test_exported_printf_with_println_is_a_clear_error(tmp_path):
    (tmp_path / "q.ea").write_text(SRC.replace("func printf", "export func printf"))
    built = ea("q.ea", "-o", "prog", cwd=tmp_path)
    assert built.returncode == 1
    assert built.stderr.splitlines()[:2] == [
        "error[codegen]: this needs the C library's 'printf', but the exported function 'printf' replaces it "
        "in this file; rename that function",
        "  --> q.ea:5:5"]
    assert "internal compiler error" not in built.stderr
