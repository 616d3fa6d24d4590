"""The server object: documents, configuration, the analysis worker, and
the diagnostics pipeline. Feature modules register their handlers on it.

Analysis never blocks the event loop: each change starts an analysis at
once in a worker thread; when it finishes, its result is published only if
no newer version of the document has arrived (older work is dropped).
Each document keeps an `AnalysisSession`: an edit inside one function body
re-checks that function only. The session moves the spans of the analysis
it returned before, in place: work on an analysis in another thread holds
`reading(uri, analysis)`, and drops it when it is no longer the newest."""
from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from ea_compiler import Analysis, AnalysisSession, __version__
from ea_compiler.tooling import PositionEncoding

from .clientcaps import ClientFeatures
from .config import Config
from .convert import ConvertedDiagnostics, using
from .protocol import EaProtocol
from .runs import RunResults
from .transport import LineReader, StreamReaderAdapter, serve


@dataclass
class Document:
    uri: str
    version: int
    text: str
    analysis: Analysis | None = None  # of `analysed_version`
    analysed_version: int = -1
    inflight: dict = field(default_factory=dict)  # version -> future of its analysis
    rewrites: object = None  # features.tune_actions.Memo: the code actions' rewrites of its analysis
    session: AnalysisSession | None = None  # analyses each version from the last (same options)
    converted: ConvertedDiagnostics = field(default_factory=ConvertedDiagnostics)  # the last published, kept


class EaServer(LanguageServer):
    def __init__(self):
        super().__init__("eals", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
                         protocol_cls=EaProtocol)
        self.config = Config()
        self.docs: dict[str, Document] = {}
        self.client = ClientFeatures()  # replaced at initialize
        self.inlay_backlogs: dict = {}  # uri -> machine._Backlog: functions compiled in the background
        self.positions = PositionEncoding()  # replaced at initialize: how columns are counted
        # Analyses of different versions run side by side, so a request for the
        # newest version never waits behind a slow analysis of an older one
        # (older results are dropped when they arrive); inspect has its own pool.
        self.analysis_pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="eals-analyse")
        self.codegen_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="eals-inspect")
        # `ea.bench` and `ea.tune` (eals/jobs.py): one at a time, so runs do not disturb each other's timing.
        self.run_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="eals-run")
        self.jobs: dict = {}  # (command, uri, function) -> the running jobs.Job
        self.run_results = RunResults()  # what hover shows of the last runs
        self._logging = threading.local()  # per thread: a log is being sent (see `log`)

    def log(self, message: str, kind: lsp.MessageType = lsp.MessageType.Log) -> None:
        """Logs go to the client's log channel, never to stdout. A log sent while
        one is being sent is dropped: pygls reports a failed write (the client
        gone) through report_server_error, which logs, whose write fails too..."""
        if getattr(self._logging, "active", False):
            return
        self._logging.active = True
        try:
            self.window_log_message(lsp.LogMessageParams(type=kind, message=message))
        except Exception:  # no client attached (tests of the handlers alone)
            pass
        finally:
            self._logging.active = False

    # ---- documents and diagnostics ----
    def open(self, uri: str, version: int, text: str) -> None:
        self.docs[uri] = Document(uri, version, text)
        self.schedule(uri)

    def change(self, uri: str, version: int) -> None:
        doc = self.docs.get(uri)
        if doc is None:
            return
        doc.version = version
        doc.text = self.workspace.get_text_document(uri).source
        self.schedule(uri)

    def close(self, uri: str) -> None:
        self.docs.pop(uri, None)
        if not self.client.pull_diagnostics:
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def schedule(self, uri: str) -> None:
        asyncio.ensure_future(self._analyse_and_publish(uri))

    async def _analyse_and_publish(self, uri: str) -> None:
        doc = self.docs.get(uri)
        if doc is None:
            return
        version, text = doc.version, doc.text
        analysis = await self.analysis_for(doc, version, text)
        current = self.docs.get(uri)
        if analysis is None or current is not doc or doc.version != version:
            return  # a newer version is on its way: never publish stale results
        if self.client.pull_diagnostics:
            return  # the client pulls (textDocument/diagnostic); pushing too would show each twice
        with using(self.positions):
            diagnostics = doc.converted.convert(analysis.diagnostics, analysis.source, uri)
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics))

    async def analysis_for(self, doc: Document, version: int, text: str) -> Analysis | None:
        """The analysis of `version`, computed in the worker (None if stale)."""
        if doc.analysed_version == version and doc.analysis is not None:
            return doc.analysis
        pending = doc.inflight.get(version)
        if pending is not None:  # requests during an analysis share it
            return await asyncio.shield(pending)
        options = self.config.options()

        def work():
            if doc.version != version:  # superseded while queued
                return None
            session = doc.session
            if session is None or session.options.key() != options.key():
                session = doc.session = AnalysisSession(doc.uri, options)
            with session.lock:
                if doc.version != version:  # superseded while waiting for the analysis before it
                    return None
                return session.update(text)

        future = asyncio.get_running_loop().run_in_executor(self.analysis_pool, work)
        doc.inflight[version] = future
        try:
            analysis = await future
        finally:
            doc.inflight.pop(version, None)
        if analysis is not None and version >= doc.analysed_version:
            doc.analysis, doc.analysed_version = analysis, version
        return analysis

    @contextlib.contextmanager
    def reading(self, uri: str, analysis: Analysis):
        """Hold while reading `analysis` outside the event loop: yields whether
        it is still the document's newest (its spans are not being moved)."""
        doc = self.docs.get(uri)
        session = doc.session if doc is not None else None
        if session is None:
            yield False
            return
        with session.lock:
            yield session.analysis is analysis

    async def current_analysis(self, uri: str) -> Analysis | None:
        doc = self.docs.get(uri)
        if doc is None:
            return None
        return await self.analysis_for(doc, doc.version, doc.text) or doc.analysis

    def reanalyse_all(self) -> None:
        for doc in self.docs.values():
            doc.analysed_version = -1
            self.schedule(doc.uri)
        if self.client.pull_diagnostics and self.client.diagnostic_refresh:
            self.workspace_diagnostic_refresh(None)

    # ---- transport: pygls' reader replaced by eals.transport's defensive one ----
    def start_io(self, stdin=None, stdout=None) -> None:
        from pygls.io_ import StdoutWriter
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        reader = LineReader(stdin or sys.stdin.buffer, ThreadPoolExecutor(1, thread_name_prefix="eals-stdin"))
        try:
            asyncio.run(serve(self._stop_event, reader, self.protocol, self.log_error))
        except (BrokenPipeError, KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        self._stop_event = stop = threading.Event()

        async def connection(reader, writer):
            self.protocol.set_writer(writer)
            await serve(stop, StreamReaderAdapter(reader), self.protocol, self.log_error)
            self.shutdown()

        async def main():
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        try:
            asyncio.run(main())
        except (KeyboardInterrupt, SystemExit, asyncio.CancelledError):
            pass
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        """Running benches and tunes stop at their next check, so the process
        does not wait for them at exit."""
        for job in list(self.jobs.values()):
            job.abandon()
        super().shutdown()

    def log_error(self, message: str) -> None:
        self.log(message, lsp.MessageType.Error)

    def report_server_error(self, error: Exception, source) -> None:
        """Errors pygls catches outside requests (e.g. a notification for an
        unknown document) go to the client's log, not a popup; the server
        keeps serving."""
        name = getattr(source, "__name__", str(source))
        self.log(f"eals: {name}: {type(error).__name__}: {error}", lsp.MessageType.Error)

    def report_crash(self, where: str) -> None:
        self.log(f"eals: error in {where}:\n{traceback.format_exc()}", lsp.MessageType.Error)


def create_server() -> EaServer:
    from .features import register_all
    server = EaServer()
    register_all(server)
    return server
