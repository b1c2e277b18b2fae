"""vap-lsp: the API server's verdict on admission-policy YAML, in the editor and in CI."""

__version__ = "0.1.0"
