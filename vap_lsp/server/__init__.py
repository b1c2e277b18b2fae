"""LSP adapter (pygls): transport, document sync, conversion. No analysis lives here."""
