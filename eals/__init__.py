"""eals: the Eä language server (arrives with its issue)."""
