"""Admission test files (`vap-lsp test`, the editor's "Run against samples"): our own format,
pfnet/kaptest's and Kyverno's `kyverno-test.yaml`, read into one case model and run through
`vap_lsp.admission.admit`."""
