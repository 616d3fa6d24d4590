"""eals: the Eä language server (pygls 2 + lsprotocol).

`eals` (stdio) or `eals --tcp [HOST:]PORT`. Features live in `eals/features/`,
one module per LSP area; all compiler knowledge comes through the compiler's
analysis API (`ea_compiler.analyze`, `ea_compiler.inspect`, `ea_compiler.intrinsics`).
"""
