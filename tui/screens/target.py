"""The target dialog (`T`): CPU (a preset or any name LLVM knows), AVX-512,
host or AArch64 triple, optimisation level. Returns new Options, or None."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Switch

from ea_compiler import Options

from ..target import ARM_TRIPLE, CPU_PRESETS, OPT_LEVELS, with_avx512, with_cpu, with_opt_level, with_triple

_HOST = "host"


class TargetScreen(ModalScreen[Options | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    DEFAULT_CSS = """
    TargetScreen {
        align: center middle;
        #target { width: 72; height: auto; border: round $accent; background: $surface; padding: 1 2; }
        #target-grid { grid-size: 2; grid-columns: 16 1fr; grid-rows: auto; grid-gutter: 1 1; height: auto; }
        #target-grid Label { padding: 1 0 0 0; }
        #target-buttons { height: auto; align-horizontal: right; margin-top: 1; }
        #target-buttons Button { margin-left: 2; }
        #target-note { color: $text-muted; margin-top: 1; }
    }
    """

    def __init__(self, options: Options) -> None:
        super().__init__()
        self._options = options

    def compose(self) -> ComposeResult:
        o = self._options
        preset = o.target_cpu if o.target_cpu in CPU_PRESETS else Select.NULL
        with Vertical(id="target") as box:
            box.border_title = "Target"
            with Grid(id="target-grid"):
                yield Label("CPU")
                yield Select([(c, c) for c in CPU_PRESETS], value=preset, allow_blank=True, id="cpu")
                yield Label("other CPU")
                yield Input(o.target_cpu if preset is Select.NULL else "", id="cpu-name",
                            placeholder="any LLVM CPU name, e.g. icelake-server")
                yield Label("architecture")
                yield Select([("host (x86-64)", _HOST), (ARM_TRIPLE, ARM_TRIPLE)],
                             value=o.target_triple or _HOST, allow_blank=False, id="triple")
                yield Label("AVX-512")
                yield Switch(o.avx512, id="avx512")
                yield Label("optimisation")
                yield Select([(f"-O{n}", n) for n in OPT_LEVELS], value=o.opt_level, allow_blank=False, id="opt")
            yield Label("AArch64 is cross-compiled: assembly and inspect work, benchmarks cannot run here.",
                        id="target-note")
            with Horizontal(id="target-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Apply", variant="primary", id="apply")

    def options(self) -> Options:
        typed = self.query_one("#cpu-name", Input).value.strip()
        preset = self.query_one("#cpu", Select).value
        cpu = typed or (preset if isinstance(preset, str) else "native")
        triple = self.query_one("#triple", Select).value
        new = with_cpu(self._options, cpu)
        new = with_avx512(new, self.query_one("#avx512", Switch).value)
        new = with_triple(new, None if triple == _HOST else str(triple))
        return with_opt_level(new, int(self.query_one("#opt", Select).value))

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "cpu" and isinstance(event.value, str):
            self.query_one("#cpu-name", Input).value = ""

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(self.options())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(self.options() if event.button.id == "apply" else None)
