package main

// `vap-oracle pss`: Pod Security Admission's own evaluator (k8s.io/pod-security-admission/policy,
// the checks PSA runs) on Pods, for vap-lsp's differential test of `vap-lsp library pss`
// (issue 36).
//
//	vap-oracle pss --level baseline|restricted --version v1.N|latest --pod FILE
//
// FILE holds one Pod or a JSON array of Pods (JSON or YAML). The answer is, per Pod, what
// admission.go prints from the evaluation (`policy.AggregateCheckResults` of
// `Evaluator.EvaluatePod` with the level and version): allowed, and the forbidden reasons and
// details in the evaluator's order. Glue only: decoding and printing.

import (
	stdjson "encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

type pssAnswer struct {
	Allowed bool     `json:"allowed"`
	Reasons []string `json:"reasons"`
	Details []string `json:"details"`
	Error   string   `json:"error,omitempty"`
}

func pssCommand(argv []string, fs files) result {
	var level, version, podFile string
	for i := 0; i < len(argv); i++ {
		if i+1 >= len(argv) {
			return usage("pss: " + argv[i] + " needs a value")
		}
		switch argv[i] {
		case "--level":
			level = argv[i+1]
		case "--version":
			version = argv[i+1]
		case "--pod":
			podFile = argv[i+1]
		default:
			return usage("pss: unknown argument " + argv[i])
		}
		i++
	}
	lv, err := api.ParseLevel(level)
	if err != nil || lv == api.LevelPrivileged {
		return usage(fmt.Sprintf("pss: --level %q: baseline or restricted", level))
	}
	v, err := api.ParseVersion(version)
	if err != nil {
		return usage(fmt.Sprintf("pss: --version %q: %v", version, err))
	}
	data, err := fs.read(podFile)
	if err != nil {
		return usage("pss: " + err.Error())
	}
	asJSON, err := yaml.YAMLToJSON(data)
	if err != nil {
		return usage("pss: " + podFile + ": " + err.Error())
	}
	// NewEvaluator's signature since v0.35: no emulation version, the newest checks.
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		return usage("pss: " + err.Error())
	}
	evaluate := func(raw []byte) pssAnswer {
		var pod corev1.Pod
		// as the API server decodes: field names case-sensitive, unknown fields dropped
		if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &pod); err != nil {
			return pssAnswer{Error: err.Error()}
		}
		agg := policy.AggregateCheckResults(
			evaluator.EvaluatePod(api.LevelVersion{Level: lv, Version: v}, &pod.ObjectMeta, &pod.Spec))
		return pssAnswer{Allowed: agg.Allowed, Reasons: agg.ForbiddenReasons, Details: agg.ForbiddenDetails}
	}
	var many []stdjson.RawMessage
	if len(asJSON) > 0 && asJSON[0] == '[' {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(asJSON, &many); err != nil {
			return usage("pss: " + podFile + ": " + err.Error())
		}
		answers := make([]pssAnswer, 0, len(many))
		for _, raw := range many {
			answers = append(answers, evaluate(raw))
		}
		return result{Stdout: answers}
	}
	return result{Stdout: evaluate(asJSON)}
}
