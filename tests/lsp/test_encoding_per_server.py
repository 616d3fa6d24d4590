"""The position encoding belongs to each server: two servers in one process,
one negotiated UTF-8 and one UTF-16, answer in their own columns even when
their requests interleave."""
from __future__ import annotations

import asyncio

from ea_compiler.tooling import PositionEncoding, SourceFile

from eals.convert import column
from eals.server import create_server
from eals.support import guarded

SOURCE = SourceFile("e.ea", 'let s = "é😀" x\n')
X_COL = 14  # 1-based character column of `x`


def test_interleaved_requests_of_two_servers_count_in_their_own_encoding():
    utf8, utf16 = create_server(), create_server()
    utf8.positions = PositionEncoding("utf-8")
    seen = {}

    @guarded("test/column")
    async def handler(ls, name):
        first = column(SOURCE, 1, X_COL)
        await asyncio.sleep(0)  # the other server's request runs here
        seen[name] = (first, column(SOURCE, 1, X_COL))

    async def both():
        await asyncio.gather(handler(utf8, "utf-8"), handler(utf16, "utf-16"))

    asyncio.run(both())
    assert seen == {"utf-8": (17, 17), "utf-16": (14, 14)}
    assert column(SOURCE, 1, X_COL) == 14  # outside any request: UTF-16, where 😀 is 2 units
