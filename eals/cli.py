"""The `eals` command: stdio by default, `--tcp [HOST:]PORT` optionally."""
from __future__ import annotations

import argparse
import logging


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="eals", description="Eä language server")
    parser.add_argument("--tcp", metavar="[HOST:]PORT", help="listen on TCP instead of stdio")
    # Clients such as vscode-languageclient (TransportKind.stdio) pass --stdio: stdio is the default.
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    args = parser.parse_args(argv)
    from ea_compiler import __version__
    if args.version:
        print(f"eals {__version__}")
        return
    # Logs must never reach stdout (the protocol channel): the client's log does.
    logging.basicConfig(level=logging.WARNING, handlers=[logging.StreamHandler()])
    from .server import create_server
    server = create_server()
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()


if __name__ == "__main__":
    main()
