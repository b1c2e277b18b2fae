"""`vap-lsp convert`: Gatekeeper ConstraintTemplates and Kyverno policies turned into native
ValidatingAdmissionPolicies, and the proof that they decide alike (the source's own tests
replayed through vap-lsp's offline admission)."""
