// Command vap-oracle answers vap-lsp's questions with Kubernetes' own Go packages (issue 34).
//
// It speaks vap-lsp's command line and JSON (`cel`, `check`, `run`, each with `--format json`)
// so that any vap-lsp invocation can be replayed against it and the two outputs diffed, plus
// `batch` (one JSON request per line on stdin, one JSON answer per line on stdout) so that
// thousands of generated cases run in one process. Every answer comes from Kubernetes'
// packages (k8s.io/kubernetes v1.37.2 and its staging modules at v0.37.2); this program is glue:
// argument parsing, reading files, and printing what those packages return.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/klog/v2"
)

// result is what one invocation prints: the JSON document (nil when none), text for stderr and
// the exit code, as vap-lsp's commands use them (0 fine, 1 denied/error, 2 usage).
type result struct {
	Stdout any    `json:"stdout"`
	Stderr string `json:"stderr,omitempty"`
	Exit   int    `json:"exit"`
}

func usage(msg string) result {
	return result{Stderr: "vap-oracle: " + msg, Exit: 2}
}

// files maps a path to its content for `batch` requests that carry their inputs inline; other
// paths are read from disk.
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

func dispatch(argv []string, fs files) (res result) {
	defer func() {
		if r := recover(); r != nil {
			res = result{Stderr: fmt.Sprintf("vap-oracle: panic: %v", r), Exit: 3}
		}
	}()
	if len(argv) == 0 {
		return usage("usage: vap-oracle cel|check|run|pss|batch|serve ...")
	}
	switch argv[0] {
	case "cel":
		return celCommand(argv[1:], fs)
	case "check":
		return checkCommand(argv[1:], fs)
	case "run":
		return runCommand(argv[1:], fs)
	case "omitempty":
		return omitemptyCommand()
	case "pss":
		return pssCommand(argv[1:], fs)
	case "version":
		return result{Stdout: map[string]string{"kubernetes": kubernetesVersion}}
	}
	return usage("unknown command " + argv[0])
}

// kubernetesVersion is the k8s.io/kubernetes module this binary links (see go.mod).
const kubernetesVersion = "1.37"

type batchRequest struct {
	Argv  []string `json:"argv"`
	Files files    `json:"files"`
}

func batch() int {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var req batchRequest
			var res result
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				res = usage("batch: bad request line: " + jerr.Error())
			} else {
				res = dispatch(req.Argv, req.Files)
			}
			if eerr := enc.Encode(res); eerr != nil {
				_ = enc.Encode(result{Stderr: "vap-oracle: cannot encode answer: " + eerr.Error(), Exit: 3})
			}
			_ = out.Flush()
		}
		if err != nil {
			return 0
		}
	}
}

func main() {
	// Kubernetes' packages log through klog (informers, policy refresh): keep stderr for our own
	// messages.
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	if len(os.Args) > 1 && os.Args[1] == "batch" {
		os.Exit(batch())
	}
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		os.Exit(serveCommand(os.Args[2:]))
	}
	res := dispatch(os.Args[1:], files{})
	if res.Stdout != nil {
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res.Stdout)
	}
	if res.Stderr != "" {
		fmt.Fprintln(os.Stderr, res.Stderr)
	}
	os.Exit(res.Exit)
}
