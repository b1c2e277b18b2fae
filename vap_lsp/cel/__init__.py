"""CEL front end (AST and parser) matching cel-go as used by the Kubernetes API server."""
