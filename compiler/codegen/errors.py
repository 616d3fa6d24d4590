"""The one exception code generation raises."""
from __future__ import annotations


class CodegenError(Exception):
    """`user=True`: the program asks for something the target cannot do
    (reported as a codegen error); otherwise a bug of ours (internal error).
    Either way it carries the source location when known."""

    def __init__(self, message: str, span, user: bool = False):
        super().__init__(message)
        self.span = span
        self.user = user
