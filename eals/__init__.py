"""eals: the Eä language server (pygls 2 + lsprotocol).

`eals` (stdio) or `eals --tcp [HOST:]PORT`. Features live in `eals/features/`,
one module per LSP area; all compiler knowledge comes through `ea_compiler`
(`analyze`) and `ea_compiler.tooling`: the IDE layer's answers (compiler/ide/),
which the features only turn into LSP types, and the run APIs (inspect, bench, tune).
"""
