"""Which Go kube-apiserver is built with, per Kubernetes minor, and what a Go release does differently.

A Go program's standard library behaves as its toolchain's release, with the GODEBUG defaults its
main module selects: `godebug default=go1.NN` in go.mod, else the go.mod's `go` line
(https://go.dev/doc/godebug). For kube-apiserver the main module is `k8s.io/kubernetes`: the
toolchain is the release tag's `.go-version` (`build/build-image/cross/VERSION` names the same),
the GODEBUG defaults come from its `go.mod`. A release branch moves to a newer Go in its patch
releases, net/url's security fixes with it, so vap-lsp follows each minor's newest patch release.
Read from the `k8s.io/kubernetes` module zips on proxy.golang.org (newest patches there, 2026-11):

| Kubernetes | `.go-version` | go.mod                          | first patch (`.0`) |
|------------|---------------|---------------------------------|--------------------|
| 1.30.14    | 1.23.10       | `go 1.22.0`                     | go1.22.2           |
| 1.31.14    | 1.24.9        | `go 1.22.0`                     | go1.22.5           |
| 1.32.13    | 1.24.13       | `go 1.23.0`, `godebug default=go1.23` | go1.23.3     |
| 1.33.13    | 1.25.11       | `go 1.24.0`, `godebug default=go1.24` | go1.24.2     |
| 1.34.12    | 1.26.5        | `go 1.25.0`, `godebug default=go1.24` | go1.24.6     |
| 1.35.8     | 1.26.5        | `go 1.25.0`, `godebug default=go1.25` | go1.25.5     |
| 1.36.5     | 1.26.8        | `go 1.26.0`, `godebug default=go1.26` | go1.26.2     |
| 1.37.2     | 1.26.10       | `go 1.26.0`, `godebug default=go1.26` | go1.26.6     |

(No `//go:debug` line in `cmd/kube-apiserver`.) What each release does differently is written
where the behaviour lives (`neturl`, `netip`), as the patch release of each branch that first has
it, read from the release's `src/net/...` in `golang.org/toolchain@v0.0.1-go1.X.Y.linux-amd64`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["KUBERNETES_GO", "NEWEST", "Branch", "Go", "Version", "for_kubernetes"]

Version = tuple[int, int, int]
Branch = tuple[int, int]

GODEBUG_CHANGED: dict[str, tuple[Branch, str]] = {
    # internal/godebugs/table.go: the language version from which a setting's new default applies,
    # and the value a main module declaring an older version runs with.
    "urlmaxqueryparams": ((1, 24), "0"),
    "urlstrictcolons": ((1, 26), "0"),
}


@dataclass(frozen=True)
class Go:
    """A Go release, and the GODEBUG settings the program built with it runs with (a setting not
    listed has the value "", its default)."""

    version: Version
    godebug: tuple[tuple[str, str], ...] = ()

    @classmethod
    def built(cls, version: Version, language: Branch) -> Go:
        """A program whose main module selects `language`'s GODEBUG defaults."""
        old = tuple((name, value) for name, (since, value) in GODEBUG_CHANGED.items() if language < since)
        return cls(version, old)

    def setting(self, name: str) -> str:
        """`godebug.New(name).Value()`."""
        return dict(self.godebug).get(name, "")

    def has(self, change: Mapping[Branch, int]) -> bool:
        """Whether this release has a change that came in patch `change[branch]` of each listed
        branch: a branch newer than every listed one has it from its `.0`, an older one never."""
        branch = self.version[:2]
        if branch in change:
            return self.version[2] >= change[branch]
        return branch > max(change)

    def __str__(self) -> str:
        return "go" + ".".join(map(str, self.version))


KUBERNETES_GO: dict[int, Go] = {
    30: Go.built((1, 23, 10), (1, 22)),
    31: Go.built((1, 24, 9), (1, 22)),
    32: Go.built((1, 24, 13), (1, 23)),
    33: Go.built((1, 25, 11), (1, 24)),
    34: Go.built((1, 26, 5), (1, 24)),
    35: Go.built((1, 26, 5), (1, 25)),
    36: Go.built((1, 26, 8), (1, 26)),
    37: Go.built((1, 26, 10), (1, 26)),
}
"""Kubernetes minor → the Go of its newest patch release (the table above)."""

NEWEST = KUBERNETES_GO[max(KUBERNETES_GO)]
"""The Go of the newest supported Kubernetes: what `vap_lsp.golang` does when not told otherwise."""


def for_kubernetes(minor: int) -> Go:
    """The Go kube-apiserver 1.`minor` is built with; outside the table, the nearest end's."""
    return KUBERNETES_GO[min(max(minor, min(KUBERNETES_GO)), max(KUBERNETES_GO))]
