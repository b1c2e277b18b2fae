"""k8s.io/apimachinery validators (names, labels, qualified names) with the server's message texts.

A bottom layer: the policy rules and the CEL `format` library both say exactly what
apimachinery says, so both import from here.
"""
