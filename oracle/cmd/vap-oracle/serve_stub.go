//go:build !serve

package main

import "fmt"

// serveCommand without the `serve` build tag: kube-apiserver is not linked into the default
// build (it doubles the build time); `oracle/build --serve` builds a binary that has it.
func serveCommand(args []string) int {
	fmt.Println("vap-oracle: this binary was built without `serve`; build it with `oracle/build --serve`")
	return 2
}
