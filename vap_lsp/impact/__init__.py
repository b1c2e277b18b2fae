"""`vap-lsp impact`: what policies would deny over snapshots, audit logs and policy changes."""
