"""tui: ea-tui, the terminal workbench for Eä kernels (Textual).

    ea-tui [FILE_OR_DIR] [--target CPU] [--avx512]

Layout: app.py (the App and `main`), app.tcss; panes/ (source, assembly,
stages, bench, tune); widgets/ (the line-based code view, the chart, the inspect
summary, the file list); screens/ (help, open file, target); rows/ (compiler
results -> code view rows); highlight.py (token and listing colours);
commands.py (command palette); compile_job.py (the compile worker).

The TUI uses only the compiler's public API: ea_compiler.explore (every stage
of a compilation), ea_compiler.inspect (the report), ea_compiler.bench,
ea_compiler.tune.
"""
