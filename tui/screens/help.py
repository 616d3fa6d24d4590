"""The help screen (`?` or F1): every key, by where it works."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: list[tuple[str, list[tuple[str, str]]]] = [
    ("Everywhere", [
        ("1 2 3 4 5", "Source, Assembly, Stages, Bench, Tune pane"),
        ("f", "show or hide the file list"),
        ("o", "open a file or folder"),
        ("T", "target: CPU, AVX-512, AArch64 triple, optimisation level"),
        ("a", "AVX-512 on/off"),
        ("t", "dark/light theme"),
        ("r", "recompile now (saving the file does it too)"),
        ("ctrl+p", "command palette: every action by name"),
        ("? F1", "this help"),
        ("q", "quit"),
    ]),
    ("Code views", [
        ("↑ ↓  k j", "move the cursor line"),
        ("PgUp PgDn", "a page up or down"),
        ("Home End  g G", "first or last line"),
        ("click", "put the cursor on a line"),
        ("Tab", "next view (source ↔ assembly)"),
    ]),
    ("Source", [
        ("", "diagnostics show under their line and in the list below; Enter on one jumps to it"),
    ]),
    ("Assembly", [
        ("", "the source cursor highlights its instructions; the assembly cursor its source line"),
        ("n p", "next or previous function"),
        ("d", "show or hide directives"),
    ]),
    ("Stages", [
        ("] s  [ S", "next or previous stage: tokens, AST, desugared AST, LLVM IR, optimised IR, assembly"),
    ]),
    ("Bench", [
        ("b", "run the checked benchmarks"),
        ("x", "quick run (fewer repetitions)"),
        ("c", "cancel the run"),
        ("space", "check or uncheck a bench or size"),
    ]),
    ("Tune", [
        ("s", "tune the function picked, in the spaces checked"),
        ("x", "quick tune (short measurements)"),
        ("c", "cancel: the best found so far is kept"),
        ("A", "apply the best in place (the original is kept as <stem>.ea.orig)"),
        ("w", "write the best beside the kernel as <stem>.tuned.ea"),
    ]),
]


def help_content() -> Content:
    parts: list = []
    for section, keys in KEYS:
        parts.append((f"{section}\n", "bold $text-accent"))
        for key, what in keys:
            parts += [(f"  {key:<16}", "bold"), f"{what}\n"] if key else [("  " + what + "\n", "$text-muted")]
        parts.append("\n")
    parts.append(("Escape, q or ? closes this screen.", "$text-muted"))
    return Content.assemble(*parts)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close")]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        #help {
            width: 96; height: auto; max-height: 90%;
            border: round $accent; border-title-color: $accent;
            background: $surface; padding: 1 2;
        }
    }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as scroll:
            scroll.border_title = "ea-tui keys"
            yield Static(help_content(), id="help-text")
