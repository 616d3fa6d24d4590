"""The four panes of the workbench: source, assembly, stages, bench. Each
takes the latest compiler results from the app (`show(...)`) and posts
messages for what the user does; none calls the compiler itself."""
