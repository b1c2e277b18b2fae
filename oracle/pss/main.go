// Command vap-oracle-pss is `vap-oracle pss` (../cmd/vap-oracle/pss.go) built on its own, with
// only k8s.io/pod-security-admission and what it needs: a standalone until the full vap-oracle
// (issue 34) dispatches `pss` itself; then this folder can go (fold-in: add `case "pss": return
// pssCommand(argv[1:], fs)` to vap-oracle's dispatch and `go mod tidy` there).
//
//	vap-oracle-pss pss --level L --version V --pod FILE   one answer (JSON) on stdout
//	vap-oracle-pss batch                                  {"argv": [...], "files": {...}} per line
//
// The types below are vap-oracle's (main.go there): result, files, usage.
package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"strings"
)

type result struct {
	Stdout any    `json:"stdout"`
	Stderr string `json:"stderr,omitempty"`
	Exit   int    `json:"exit"`
}

func usage(msg string) result {
	return result{Stderr: "vap-oracle: " + msg, Exit: 2}
}

type files map[string]string

func (f files) read(path string) ([]byte, error) {
	if text, ok := f[path]; ok {
		return []byte(text), nil
	}
	if path == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(path)
}

func dispatch(argv []string, fs files) result {
	if len(argv) == 0 || argv[0] != "pss" {
		return usage("usage: vap-oracle-pss pss|batch ...")
	}
	return pssCommand(argv[1:], fs)
}

func main() {
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if len(os.Args) > 1 && os.Args[1] == "batch" {
		in := bufio.NewReader(os.Stdin)
		for {
			line, err := in.ReadBytes('\n')
			if len(strings.TrimSpace(string(line))) > 0 {
				var req struct {
					Argv  []string `json:"argv"`
					Files files    `json:"files"`
				}
				res := usage("batch: bad request line")
				if json.Unmarshal(line, &req) == nil {
					res = dispatch(req.Argv, req.Files)
				}
				_ = enc.Encode(res)
				_ = out.Flush()
			}
			if err != nil {
				return
			}
		}
	}
	res := dispatch(os.Args[1:], files{})
	if res.Stdout != nil {
		_ = enc.Encode(res.Stdout)
	}
	if res.Stderr != "" {
		os.Stderr.WriteString(res.Stderr + "\n")
	}
	out.Flush()
	os.Exit(res.Exit)
}
