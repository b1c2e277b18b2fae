"""Language services: one module per feature, each a function from a document snapshot and a
position to plain results. They know nothing of LSP or the transport (the server adapts them)."""
