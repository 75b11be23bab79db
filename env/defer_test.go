package env

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/xrltest"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/rewrite"
)

// swapRelu is an unsound whole-graph pass: the first Relu becomes a
// Sigmoid.
func swapRelu(g *graph.Graph) (*graph.Graph, bool, error) {
	return replaceFirst(g, "Relu", func(n *graph.Node) { n.Op = "Sigmoid" })
}

// dropTanh is a sound one (for the check below): the Tanh becomes an
// Identity.
func dropTanh(g *graph.Graph) (*graph.Graph, bool, error) {
	return replaceFirst(g, "Tanh", func(n *graph.Node) { n.Op = "Identity" })
}

func replaceFirst(g *graph.Graph, op string, edit func(*graph.Node)) (*graph.Graph, bool, error) {
	c := g.Clone()
	for _, n := range c.Nodes {
		if n.Op == op {
			edit(n)
			return c, true, nil
		}
	}
	return g, false, nil
}

// sigmoidCheck refuses every result with more Sigmoids than its input,
// counting its calls.
func sigmoidCheck(calls *int) rewrite.Checker {
	count := func(g *graph.Graph) (k int) {
		for _, n := range g.Nodes {
			if n.Op == "Sigmoid" {
				k++
			}
		}
		return k
	}
	return func(before, after *graph.Graph, _ float64) error {
		*calls++
		if count(after) > count(before) {
			return errors.New("not the same function")
		}
		return nil
	}
}

// ruleAgent chooses by content, as a policy scoring each candidate on
// its own does: the first candidate of the first rule in prefer that has
// one, and No-Op when there is none.
type ruleAgent struct {
	env    *Env
	prefer []string
}

func (a ruleAgent) Act(obs *Observation) (int, error) {
	for _, r := range a.prefer {
		for i, c := range a.env.Candidates() {
			if c.Rule == r {
				return i, nil
			}
		}
	}
	return obs.NoOp(), nil
}

// TestDeferChecksKeepsEpisodes runs the same agents with and without
// Config.DeferChecks over rewriters with a sound pass, and with an
// unsound one that is always refused: the episodes must be equal (rules,
// steps, rewards, best graph), a refused choice being asked again, while
// fewer results are checked when the agent does not apply every pass.
// Without capping an unsound pass changes nothing; with capping it may
// (see Config.DeferChecks), so capped cases use sound passes only.
func TestDeferChecksKeepsEpisodes(t *testing.T) {
	passesFirst := []string{"swap-relu", "drop-tanh", "drop-identity", "relu-idempotent"}
	passesLast := []string{"relu-idempotent", "drop-identity", "drop-tanh", "swap-relu"}
	sound := []rewrite.Pass{{Name: "drop-tanh", Apply: dropTanh}}
	both := append([]rewrite.Pass{{Name: "swap-relu", Apply: swapRelu}}, sound...)
	for _, tc := range []struct {
		name          string
		passes        []rewrite.Pass
		prefer        []string
		maxCandidates int
		fewerChecks   bool
	}{
		{"unsound pass preferred", both, passesFirst, 200, false},
		{"unsound pass last", both, passesLast, 200, true},
		{"sound pass preferred", sound, passesFirst, 200, false},
		{"sound pass last", sound, passesLast, 200, true},
		{"sound, capped to 1", sound, passesFirst, 1, false},
		{"sound, capped to 2", sound, passesLast, 2, true},
		{"sound, capped to 3", sound, passesLast, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var eps [2]Episode
			var checks [2]int
			for i, deferred := range []bool{false, true} {
				w := &rewrite.WithPasses{Base: xrltest.DropRewriter{}, Check: sigmoidCheck(&checks[i]), Passes: tc.passes}
				e, err := New(Config{Model: xrltest.ChainModel(t, "Identity", "Relu", "Relu", "Identity", "Relu", "Relu", "Tanh"),
					Rewriter: w, Latency: measure.Cached(opLatency{}), MaxCandidates: tc.maxCandidates, FeedbackEvery: 1,
					CandidateGains: true, DeferChecks: deferred})
				if err != nil {
					t.Fatal(err)
				}
				if eps[i], err = Rollout(e, ruleAgent{e, tc.prefer}, 7); err != nil {
					t.Fatal(err)
				}
			}
			a, b := eps[0], eps[1]
			if !slices.Equal(a.Applied, b.Applied) || a.Steps != b.Steps || a.Return != b.Return || a.StopReason != b.StopReason ||
				a.BestLatency != b.BestLatency || a.Best.CanonicalHash() != b.Best.CanonicalHash() {
				t.Errorf("checks at once: %d steps %v (%s), return %g, best %v\ndeferred:       %d steps %v (%s), return %g, best %v",
					a.Steps, a.Applied, a.StopReason, a.Return, a.BestLatency, b.Steps, b.Applied, b.StopReason, b.Return, b.BestLatency)
			}
			if len(a.Applied) == 0 {
				t.Error("the episode applied nothing")
			}
			if tc.fewerChecks && checks[1] >= checks[0] {
				t.Errorf("deferred checks ran %d times, checks at once %d: nothing saved", checks[1], checks[0])
			}
			if checks[1] > checks[0] {
				t.Errorf("deferred checks ran %d times, more than checks at once (%d)", checks[1], checks[0])
			}
		})
	}
}

// TestRejectedStepLeavesTheEpisode checks Step's ErrRejected: the step is
// not taken, and Observation() holds the candidates without the refused
// one, as without DeferChecks.
func TestRejectedStepLeavesTheEpisode(t *testing.T) {
	calls := 0
	w := &rewrite.WithPasses{Base: xrltest.DropRewriter{}, Check: sigmoidCheck(&calls),
		Passes: []rewrite.Pass{{Name: "swap-relu", Apply: swapRelu}}}
	e, err := New(Config{Model: xrltest.ChainModel(t, "Identity", "Relu", "Relu", "Tanh"), Rewriter: w,
		Latency: &xrltest.NodeLatency{}, DeferChecks: true})
	if err != nil {
		t.Fatal(err)
	}
	obs, _, err := e.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	if e.Candidates()[0].Rule != "swap-relu" || len(obs.Candidates) != 3 {
		t.Fatalf("deferred: %d candidates, first %s; want 3, the pass first", len(obs.Candidates), e.Candidates()[0].Rule)
	}
	g := e.Graph()
	if _, _, _, _, _, err := e.Step(0); !errors.Is(err, ErrRejected) {
		t.Fatalf("choosing the unsound pass: %v, want ErrRejected", err)
	}
	if e.Steps() != 0 || e.Graph() != g || len(e.Applied()) != 0 {
		t.Errorf("the rejected step changed the episode: %d steps, applied %v", e.Steps(), e.Applied())
	}
	obs = e.Observation()
	if len(obs.Candidates) != 2 || e.Candidates()[0].Rule == "swap-relu" || e.Candidates()[0].Verify != nil {
		t.Errorf("after the rejection: %d candidates, first %s; want the 2 of the base rewriter", len(obs.Candidates), e.Candidates()[0].Rule)
	}
	if _, _, _, _, info, err := e.Step(0); err != nil || info.Step != 1 {
		t.Errorf("acting again: step %d, %v", info.Step, err)
	}
}

// TestLatencyByKnownHash checks the latencies the environment looks up
// by a candidate's or the current graph's known hash (a cached latency
// model is given it instead of hashing): every measured step and every
// candidate gain must be that of the graph itself. A stale current-graph
// hash would return the previous graph's latency.
func TestLatencyByKnownHash(t *testing.T) {
	model := xrltest.ChainModel(t, "Identity", "Relu", "Relu", "Identity", "Relu", "Relu", "Tanh")
	e, err := New(Config{Model: model, Rewriter: xrltest.DropRewriter{}, Latency: measure.Cached(opLatency{}),
		FeedbackEvery: 1, CandidateGains: true})
	if err != nil {
		t.Fatal(err)
	}
	truth := func(g *graph.Graph) time.Duration {
		st, _ := opLatency{}.Latency(&graph.Model{Graph: g})
		return st.Median
	}
	obs, _, err := e.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	for step := 1; len(obs.Candidates) > 0; step++ {
		cur := truth(e.Graph())
		for i, c := range e.Candidates() {
			want := GainFeature(float64(cur-truth(c.Graph)) / float64(cur))
			if got := obs.Candidates[i].Global[0]; got != want {
				t.Errorf("step %d, candidate %d (%s): gain feature %g, want %g", step, i, c.Rule, got, want)
			}
		}
		next, _, term, trunc, info, err := e.Step(len(obs.Candidates) - 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := truth(e.Graph()); info.Latency != want {
			t.Errorf("step %d: measured %v, the graph's latency is %v", step, info.Latency, want)
		}
		if term || trunc {
			break
		}
		obs = next
	}
}
