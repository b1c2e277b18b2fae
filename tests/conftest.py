"""Make shared test data modules (tests/*.py) importable from every test folder."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# One kube-apiserver per session for every test that needs one (impact --cluster, vap-oracle serve).
from kube_apiserver import kubeconfig

__all__ = ["kubeconfig"]
