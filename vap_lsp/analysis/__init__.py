"""Analysis: from a parsed YAML file to diagnostics. Knows nothing of LSP or the terminal."""
