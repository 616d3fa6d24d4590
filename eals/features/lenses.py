"""textDocument/codeLens: "bench" and "tune" above each exported function
that the suite beside the file (`<stem>.bench.toml`) benches. They run the
commands `ea.bench` and `ea.tune` (run_commands.py) with the arguments
[uri, function, {"background": true}]: a click is answered at once and the run
goes on (Emacs's clients block the editor until a command answers, 10 s at
most, then give up on it). The functions come from the document's current analysis, the
benches from the suite on disk (eals/runs.py: `benched_functions`)."""
from __future__ import annotations

import asyncio

from lsprotocol import types as lsp

from ea_compiler.tooling import functions

from ..convert import to_range
from ..runs import benched_functions, file_path
from ..support import guarded
from .run_commands import BACKGROUND, BENCH, TUNE

LENSES = (("bench", BENCH), ("tune", TUNE))


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=False))
    @guarded(lsp.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls, params: lsp.CodeLensParams):
        uri = params.text_document.uri
        path = file_path(uri)
        if path is None:
            return []
        analysis = await ls.current_analysis(uri)
        if analysis is None:
            return []
        targets = await asyncio.get_running_loop().run_in_executor(ls.analysis_pool, benched_functions, path)
        lenses = []
        for item in functions(analysis):
            # a function of the other architecture (not live): nothing to run
            if not (item.exported and item.live and item.name in targets):
                continue
            rng = to_range(analysis.source, item.name_span)
            for title, command in LENSES:
                lenses.append(lsp.CodeLens(range=rng, command=lsp.Command(
                    title=title, command=command, arguments=[uri, item.name, {BACKGROUND: True}])))
        return lenses
