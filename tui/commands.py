"""The command palette's Eä commands (ctrl+p): open files, switch panes and
stages, change the target, toggle the theme, run benchmarks and tuning."""
from __future__ import annotations

from functools import partial
from typing import Callable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .rows.stages import STAGES
from .target import ARM_TRIPLE, CPU_PRESETS, OPT_LEVELS
from .workspace import display_path

Command = tuple[str, str, Callable[[], object]]


def app_commands(app) -> list[Command]:
    """(title, help, callback) for everything the palette offers."""
    out: list[Command] = []
    for path in app.workspace.files:
        out.append((f"Open {path.name}", display_path(path), partial(app.open_path, path)))
    out.append(("Open file or folder…", "type a path or browse", app.action_open_file))
    out.append(("Toggle file list", "show or hide the .ea files of the folder (f)", app.action_toggle_files))
    for key, (pane, title) in enumerate([("source", "Source"), ("assembly", "Assembly"), ("stages", "Stages"),
                                         ("bench", "Bench"), ("tune", "Tune")], 1):
        out.append((f"Pane: {title}", f"switch to the {title} pane ({key})", partial(app.action_pane, pane)))
    for stage, title in STAGES:
        out.append((f"Stage: {title}", "show this compiler stage in the Stages pane", partial(app.show_stage, stage)))
    for cpu in CPU_PRESETS:
        out.append((f"Target CPU: {cpu}", "recompile for this CPU", partial(app.action_set_cpu, cpu)))
    out.append(("Target: AArch64 (cross-compile)", ARM_TRIPLE, partial(app.action_set_triple, ARM_TRIPLE)))
    out.append(("Target: host x86-64", "compile for this machine's architecture", partial(app.action_set_triple, "")))
    out.append(("Toggle AVX-512", "x86 only (a)", app.action_toggle_avx512))
    for level in OPT_LEVELS:
        out.append((f"Optimisation level -O{level}", "recompile at this level", partial(app.action_set_opt, level)))
    out.append(("Target…", "CPU, AVX-512, triple and level in one dialog (T)", app.action_target))
    out.append(("Toggle dark/light theme", "(t)", app.action_toggle_theme))
    out.append(("Run benchmarks", "the checked benches and sizes of the Bench pane (b)", partial(app.run_bench, False)))
    out.append(("Run benchmarks (quick)", "fewer repetitions (x)", partial(app.run_bench, True)))
    out.append(("Cancel benchmarks", "stop the run in progress (c)", app.cancel_bench))
    out.append(("Tune", "search faster variants of the Tune pane's function (s)", partial(app.run_tune, False)))
    out.append(("Tune (quick)", "short measurements (x)", partial(app.run_tune, True)))
    out.append(("Cancel tuning", "stop the search; the best so far is kept (c)", app.cancel_tune))
    out.append(("Recompile", "compile the file again now (r)", app.action_recompile))
    out.append(("Help: keys", "every key binding (? or F1)", app.action_help))
    return out


class EaCommands(Provider):
    async def discover(self) -> Hits:
        for title, help_text, callback in app_commands(self.app):
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in app_commands(self.app):
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
