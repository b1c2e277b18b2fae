// The static manifests oracle: kube-apiserver's own loaders (k8s.io/kubernetes v1.37.2
// pkg/admission/plugin/policy/manifest/loader) run on folders named on standard input, one
// "validating|mutating <folder>" per line; one JSON answer per line: the error, or the counts.
// Built and driven by ../static_manifests_oracle.py; never part of vap-lsp.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"k8s.io/kubernetes/pkg/admission/plugin/policy/manifest/loader"
)

type answer struct {
	Error    string `json:"error,omitempty"`
	Policies int    `json:"policies"`
	Bindings int    `json:"bindings"`
}

func load(plugin, dir string) answer {
	if plugin == "mutating" {
		r, err := loader.LoadMutatingManifestsFromDirectory(dir)
		if err != nil {
			return answer{Error: err.Error()}
		}
		return answer{Policies: len(r.Policies), Bindings: len(r.Bindings)}
	}
	r, err := loader.LoadValidatingManifestsFromDirectory(dir)
	if err != nil {
		return answer{Error: err.Error()}
	}
	return answer{Policies: len(r.Policies), Bindings: len(r.Bindings)}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		plugin, dir, ok := strings.Cut(in.Text(), " ")
		if !ok {
			fmt.Fprintln(os.Stderr, "expected: validating|mutating <folder>")
			os.Exit(2)
		}
		if err := out.Encode(load(plugin, dir)); err != nil {
			os.Exit(1)
		}
	}
}
