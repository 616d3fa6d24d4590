"""The JSON-RPC protocol as pygls 2 implements it, with four corrections.

1. Messages whose params do not deserialise still get an answer: JSON-RPC
   requires one for every request, so a request is answered InvalidParams
   (-32602) with the reason, and a notification is dropped with a log line.
   `initialize` is special: clients send capabilities that a strict schema
   rejects (unknown enum values, partial objects); the parts that do not
   parse are dropped and the rest is kept, so the session starts.
2. A refused request (LSP RequestFailed, e.g. a rename of an intrinsic, or
   InvalidParams, e.g. an executeCommand with arguments that do not fit) is a
   normal answer: it is sent without a traceback on stderr or an Error-type
   log message.
3. A cancel for a request that was already answered is normal too.
4. pygls keeps the Future of every notification whose handler is a
   generator (all built-in document-sync handlers) in `_request_futures`
   forever: about 2 KB per didChange. They are removed when they finish.
5. Methods the server does not implement are normal too: clients send some
   unasked (eglot sends `textDocument/didSave` on every save). pygls warns on
   stderr for each, which Neovim records as an ERROR in lsp.log, and reports an
   unknown request as a server error (an Error-type log message). An unknown
   notification is ignored, an unknown request answered MethodNotFound, quietly.
6. `shutdown` with a request in flight (a long `ea.tune`): pygls cancels
   each while iterating the dict that cancelling one changes, and answers
   the shutdown with an InternalError. It iterates over a copy here.
7. pygls applies a didChange by rebuilding the text line by line: time that
   grows with the file on every keystroke. `textsync` splices it instead.
"""
from __future__ import annotations

import logging
from typing import Any
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcMethodNotFound
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import (JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage,
                                     ResponseErrorMessage)

from .textsync import apply_change

log = logging.getLogger("eals")

REQUEST_FAILED = -32803  # LSP ErrorCodes.RequestFailed: a refusal, not a failure


class Unanswerable:
    """What `structure` returns for a message that was already dealt with."""


DEALT_WITH = Unanswerable()


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    notes = [n for sub in getattr(exc, "exceptions", ()) for n in getattr(sub, "__notes__", [])]
    return f"{text} ({'; '.join(notes[:3])})" if notes else text


class EaProtocol(LanguageServerProtocol):

    # ---- 1. every message gets its answer ----
    def structure(self, data: Any) -> Any:
        """Deserialise one decoded JSON-RPC message (not each nested object, as
        pygls' object_hook does), answering what cannot be deserialised."""
        if not isinstance(data, dict) or data.get("jsonrpc") != self.VERSION:
            msg_id = data.get("id") if isinstance(data, dict) else None
            self._send_data({"jsonrpc": self.VERSION, "id": msg_id,
                             "error": {"code": -32600, "message": "Invalid Request: not a JSON-RPC 2.0 message"}})
            return DEALT_WITH
        try:
            return self._structure(data)
        except Exception as exc:
            method = data.get("method")
            if method == lsp.INITIALIZE:
                return self._structure_initialize(data)
            reason = _reason(exc)
            if "id" in data and method is not None:
                self._send_response(data["id"], error=lsp.ResponseError(
                    code=JsonRpcInvalidParams.CODE, message=f"Invalid params for {method}: {reason}"))
            else:
                log.info("eals: dropped %s: invalid params: %s", method or "a message", reason)
            return DEALT_WITH

    def _structure(self, data: dict) -> Any:
        """pygls' structure_message without its traceback on stderr for bad input."""
        if "id" in data:
            if "error" in data:
                return self._converter.structure(data, ResponseErrorMessage)
            if "method" in data:
                kind = self.get_message_type(data["method"]) or JsonRPCRequestMessage
                return self._converter.structure(data, kind)
            kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
            return self._converter.structure(data, kind)
        kind = self.get_message_type(data.get("method", "")) or JsonRPCNotification
        return self._converter.structure(data, kind)

    def _structure_initialize(self, data: dict) -> Any:
        params = data.get("params")
        if not isinstance(params, dict):
            params = {}
        caps = params.get("capabilities")
        params = {k: v for k, v in params.items() if k in ("processId", "rootUri", "rootPath", "clientInfo",
                                                         "locale", "initializationOptions", "trace",
                                                         "workspaceFolders")}
        params.setdefault("processId", None)
        params.setdefault("rootUri", None)
        params["capabilities"] = self._usable_capabilities(caps)
        try:
            return self._structure({**data, "params": params})
        except Exception:
            # Even the basic fields are unusable: start with nothing declared.
            return self._structure({**data, "params": {"processId": None, "rootUri": None, "capabilities": {}}})

    def _usable_capabilities(self, caps: Any) -> dict:
        """The client capabilities minus the parts that do not parse, kept at the
        finest level that parses (e.g. `textDocument.completion` survives a bad
        `textDocument.hover`)."""
        if not isinstance(caps, dict):
            return {}
        kept: dict = {}
        for key, value in caps.items():
            if self._parses({key: value}):
                kept[key] = value
            elif isinstance(value, dict):
                inner = {k: v for k, v in value.items() if self._parses({key: {k: v}})}
                if inner:
                    kept[key] = inner
        return kept

    def _parses(self, caps: dict) -> bool:
        try:
            self._converter.structure(caps, lsp.ClientCapabilities)
            return True
        except Exception:
            return False

    def handle_message(self, message: Any) -> None:
        if message is DEALT_WITH:
            return
        super().handle_message(message)

    # ---- 2. refusals are answers ----
    def _send_handler_result(self, future, *, msg_id):
        if not future.cancelled():
            exc = future.exception()
            if isinstance(exc, JsonRpcException) and exc.code in (REQUEST_FAILED, JsonRpcInvalidParams.CODE):
                self._request_futures.pop(msg_id, None)
                self._send_response(msg_id, error=exc.to_response_error())
                return
        super()._send_handler_result(future, msg_id=msg_id)

    # ---- 3. late cancels ----
    def _handle_cancel_notification(self, msg_id):
        future = self._request_futures.pop(msg_id, None)
        if future is not None:
            future.cancel()

    # ---- 4. notification futures are not kept ----
    def _execute_handler(self, msg_id, handler, callback, args=None, kwargs=None):
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        if callback == self._check_handler_result:  # a notification: nobody will pop it
            future = self._request_futures.get(msg_id)
            if future is not None:
                future.add_done_callback(lambda _f: self._request_futures.pop(msg_id, None))

    # ---- 7. didChange in time that does not grow with the file ----
    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: lsp.DidChangeTextDocumentParams):
        doc = self.workspace.text_documents.get(unquote(params.text_document.uri))
        if doc is None:  # pygls' handler reports the unknown document
            yield from super().lsp_text_document__did_change(params)
            return
        for change in params.content_changes:
            apply_change(doc, change)
        doc.version = params.text_document.version
        if (user_handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield user_handler, (params,), None

    # ---- 6. shutdown with requests in flight ----
    @lsp_method(lsp.SHUTDOWN)
    def lsp_shutdown(self, *args):
        """pygls' shutdown, over a copy of the in-flight requests: cancelling one
        whose handler is a generator (executeCommand) removes it at once."""
        if (user_handler := self.fm.features.get(lsp.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        return None

    # ---- 5. unknown methods ----
    def _implements(self, method_name: str) -> bool:
        return method_name in self.fm.builtin_features or method_name in self.fm.features

    def _handle_notification(self, method_name: str, params: Any):
        if method_name == lsp.CANCEL_REQUEST or self._implements(method_name):
            super()._handle_notification(method_name, params)

    def _handle_request(self, msg_id, method_name: str, params: Any):
        if self._implements(method_name):
            super()._handle_request(msg_id, method_name, params)
        else:
            self._send_response(msg_id, None, JsonRpcMethodNotFound.of(method_name).to_response_error())
