"""Reusable widgets: the code view (code_view.py, code_row.py), the
benchmark chart (chart.py), the tuning chart (tune_chart.py), the inspect
summary (inspect_summary.py), the file list (file_list.py)."""
