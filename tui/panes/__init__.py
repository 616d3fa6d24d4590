"""The five panes of the workbench: source, assembly, stages, bench, tune.
Each takes the latest compiler results from the app (`show(...)`) and posts
messages for what the user does; bench and tune run their work in a thread
worker and report back to the UI thread."""
