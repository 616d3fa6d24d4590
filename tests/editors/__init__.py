"""Editor integrations driven by the real editors (Neovim)."""
