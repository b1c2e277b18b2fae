"""Policy libraries vap-lsp generates (`vap-lsp library`): today the Pod Security Standards
(`pss`), written from Pod Security Admission's own checks and proven on its fixtures."""
