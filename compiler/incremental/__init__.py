"""Incremental analysis: a document analysed again after each edit, re-doing
only what the edit touched (`AnalysisSession`), with the same results as
`analysis.analyze` of the whole text."""
from .session import AnalysisSession

__all__ = ["AnalysisSession"]
