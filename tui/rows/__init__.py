"""Row builders: compiler results -> CodeView rows (tui/widgets/code_row.py).

Pure functions, no widgets: source.py (an Eä file with its diagnostics),
assembly.py (a function's listing), stages.py (the explorer's text stages).
"""
