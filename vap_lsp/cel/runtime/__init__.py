"""CEL runtime: values, library implementations and the cost model used by
`vap_lsp.cel.interpreter`."""
