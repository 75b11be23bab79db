package pipeline

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

var updateRollouts = flag.Bool("update-rollouts", false, "rewrite testdata/agent_rollouts.json from this run")

// goldenRollout is what the built-in agent's greedy rollout did on one
// model: the rules it applied in order, how it stopped, and the best
// graph (canonical hash) with its roofline latency.
type goldenRollout struct {
	Model      string   `json:"model"`
	Steps      int      `json:"steps"`
	StopReason string   `json:"stop_reason"`
	Applied    []string `json:"applied"`
	BestHash   string   `json:"best_hash"`
	BestNs     int64    `json:"best_ns"`
}

// goldenFile holds the rollouts with the commit of the code that produced
// them (testdata/agent_rollouts.json).
type goldenFile struct {
	Provenance string          `json:"provenance"`
	Rollouts   []goldenRollout `json:"rollouts"`
}

const goldenPath = "testdata/agent_rollouts.json"

// rolloutModels are the models of the golden rollouts: corpus models on
// which the built-in agent takes several steps and whole-graph passes
// apply, and which prepare in seconds.
var rolloutModels = []corpusModel{
	{name: "vit_tiny"},
	{name: "gpt_decoder", shapes: map[string][]int{"ids": {1, 32}}},
	{name: "squeezenet1_1"},
	{name: "encoder_classifier", shapes: map[string][]int{"ids": {1, 128}}},
}

// TestAgentRolloutsUnchanged checks that the built-in agent's greedy
// rollout (as xrl optimize runs it: roofline model, patience 3, seed 1)
// applies the same rules and finds the same graph as recorded in
// testdata/agent_rollouts.json: speeding the environment up must not
// change what the agent chooses.
func TestAgentRolloutsUnchanged(t *testing.T) {
	var got []goldenRollout
	for _, m := range rolloutModels {
		res := agentRollout(t, rolloutStart(t, m))
		ep := res.Best
		got = append(got, goldenRollout{Model: m.name, Steps: ep.Steps, StopReason: ep.StopReason, Applied: ep.Applied,
			BestHash: bestHash(ep.Best), BestNs: ep.BestLatency.Nanoseconds()})
	}
	if *updateRollouts {
		b, err := json.MarshalIndent(goldenFile{Provenance: os.Getenv("XRL_GOLDEN_PROVENANCE"), Rollouts: got}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(goldenPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	var want goldenFile
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", goldenPath, err)
	}
	if len(want.Rollouts) != len(got) {
		t.Fatalf("%s holds %d rollouts, the test ran %d", goldenPath, len(want.Rollouts), len(got))
	}
	for i, w := range want.Rollouts {
		g := got[i]
		if g.Model != w.Model || g.Steps != w.Steps || g.StopReason != w.StopReason || !slices.Equal(g.Applied, w.Applied) ||
			g.BestHash != w.BestHash || g.BestNs != w.BestNs {
			t.Errorf("%s: got %d steps (%s) applying %v, best %s at %d ns;\nrecorded %d steps (%s) applying %v, best %s at %d ns",
				w.Model, g.Steps, g.StopReason, g.Applied, g.BestHash, g.BestNs, w.Steps, w.StopReason, w.Applied, w.BestHash, w.BestNs)
		}
	}
}

// bestHash is g's full canonical hash in hex.
func bestHash(g *graph.Graph) string {
	h := g.CanonicalHash()
	return hex.EncodeToString(h[:])
}
