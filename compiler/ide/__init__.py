"""The IDE layer: every question an editor or the TUI asks of a file,
answered as plain data with spans (compiler positions: byte offsets, 1-based
lines and character columns). It reads the analysis (tokens, trees, the
symbol table and the checker's recorded decisions) and decides nothing the
compiler has not: the language server (eals/) only turns these answers into
LSP types, the TUI (tui/) only into styles.

- highlight: `highlights` -> `Highlight(line, col, end_col, TokenClass, Modifier)`;
- occurrences / navigation: what a position names, its definition, its
  references, rename (`Refused` with the reason);
- scope: the enclosing function, locals in scope, `completion`;
- calls: the call around a cursor, `signature_help`;
- outline: `outline` (OutlineItem tree) and `folds`;
- hover: `hover` -> what the word under the cursor names;
- hints: width `TypeHint`s, the `functions` a range shows;
- fixes: the diagnostics' suggestions as quick fixes.
"""
from __future__ import annotations

from .calls import CallSite, Parameter, Signature, SignatureHelp, call_at, signature_help, split_params
from .highlight import Highlight, Modifier, TokenClass, highlights, token_class
from .fixes import Fix, fixes
from .hints import FunctionAt, TypeHint, functions, width_hints
from .hover import Hover, hover, word_at
from .navigation import Refused, definition, references, refusal, rename, renamable
from .occurrences import Occurrence, all_occurrences, occurrence_at, occurrences, same_entity
from .outline import Fold, OutlineItem, folds, outline
from .scope import COMPLETION_KEYWORDS, TopLevel, Completion, completion, enclosing_item, fields_of, in_scope, params_of

__all__ = [
    "CallSite", "Parameter", "Signature", "SignatureHelp", "call_at", "signature_help", "split_params",
    "Highlight", "Modifier", "TokenClass", "highlights", "token_class",
    "Fix", "fixes",
    "FunctionAt", "TypeHint", "functions", "width_hints",
    "Hover", "hover", "word_at",
    "Refused", "definition", "references", "refusal", "rename", "renamable",
    "Occurrence", "all_occurrences", "occurrence_at", "occurrences", "same_entity",
    "Fold", "OutlineItem", "folds", "outline",
    "COMPLETION_KEYWORDS", "TopLevel", "Completion", "completion", "enclosing_item", "fields_of", "in_scope",
    "params_of",
]
