"""How Go does it: the only place that knows.

Kubernetes is written in Go and cel-go runs on Go's standard library, so the server's words and
CEL's values follow Go: `strconv.Quote`, `encoding/json`, `time` (RFC 3339 and durations),
`strings.TrimSpace`, `regexp` (RE2), `net/url`, `net/netip` and the `fmt` verbs cel-go's string
formatting uses. Every other layer calls these modules; none imports anything of the project, and
`tests/golang/` checks them against a Go program built from `tests/golang/differential/`.

The server's Go is the one its Kubernetes version is built with (`toolchain`: the release tags'
`.go-version` and `go.mod`); where releases differ (`net/url`'s host parsing, `net/netip` before Go
1.23), a function takes the `toolchain.Go` to answer as, by default the newest Kubernetes'.
"""
