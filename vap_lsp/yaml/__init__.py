"""Position-tracking YAML layer: text in, `YamlFile` out. Knows nothing of Kubernetes."""
