package rewrite

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/xrl-dev/xrl/executor"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
	_ "github.com/xrl-dev/xrl/measure/goexec" // registers the "go" backend
	"github.com/xrl-dev/xrl/rules"
	"github.com/xrl-dev/xrl/verify"
)

// testRules are small rules for the engine tests (not verified rules of
// the shipped set; they only need to be correct on the test graphs).
const testRules = `
relu-idem     Relu(Relu(x)) => Relu(x)
    where x[*s]
add-same      Add(x, c) && isConst(c) => Add(x, Mul(c, const(1.0)))
    where x[*s]  c[*s]
sig-relu-swap Relu(Sigmoid(x)) => Sigmoid(x)
    where x[*s]
`

func parseTestRules(t *testing.T) *rules.Set {
	t.Helper()
	set, err := rules.Parse("test.rules", []byte(testRules))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// randConst returns a float32 constant tensor with seeded data.
func randConst(seed uint64, shape ...int) *graph.Tensor {
	rng := rand.New(rand.NewPCG(seed, 7))
	t := graph.NewTensor(graph.Float32, shape...)
	for i := range t.Float32s() {
		t.Float32s()[i] = rng.Float32()*2 - 1
	}
	return t
}

// checkCandidates validates every candidate, checks that no two share a
// hash and none has g's, and (with verify) that each computes g's
// function. It checks that Hash is the canonical hash of every candidate,
// or of every hashEvery-th one when hashEvery > 1 (recomputing it from
// scratch is slow on large graphs). Validation and hashing run on two
// goroutines.
func checkCandidates(t *testing.T, g *graph.Graph, cands []Candidate, verify bool, hashEvery int) {
	t.Helper()
	hashEvery = max(hashEvery, 1)
	errs := make([]error, len(cands))
	hashes := make([]graph.Hash, len(cands))
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(cands); i += 2 {
				errs[i] = cands[i].Graph.Validate()
				if i%hashEvery == 0 {
					hashes[i] = cands[i].Graph.CanonicalHash()
				}
			}
		}()
	}
	wg.Wait()
	seen := map[graph.Hash]string{g.CanonicalHash(): "the input graph"}
	for i, c := range cands {
		if errs[i] != nil {
			t.Errorf("candidate %d (%s) is invalid: %v", i, c.Rule, errs[i])
			continue
		}
		if i%hashEvery == 0 && hashes[i] != c.Hash {
			t.Errorf("candidate %d (%s): Hash %v, CanonicalHash %v", i, c.Rule, c.Hash, hashes[i])
		}
		if prev, ok := seen[c.Hash]; ok {
			t.Errorf("candidate %d (%s) duplicates %s", i, c.Rule, prev)
		}
		seen[c.Hash] = c.Rule
		if verify {
			verifySame(t, g, c.Graph, c.Rule)
		}
	}
}

// goBackend is the Go executor as a runtime backend.
func goBackend(t testing.TB) measure.Backend {
	t.Helper()
	be, err := measure.NewBackend("go", measure.BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return be
}

// verifySame checks that b computes a's function (relative error 1e-4).
func verifySame(t testing.TB, a, b *graph.Graph, what string) {
	t.Helper()
	res, err := verify.Models(goBackend(t), &graph.Model{Graph: a}, &graph.Model{Graph: b}, verify.Options{Seeds: 1, Tolerance: 1e-4})
	if err != nil {
		t.Errorf("%s: verify: %v", what, err)
		return
	}
	if !res.OK {
		t.Errorf("%s: rewritten graph computes another function: %v", what, res)
	}
}

// ruleStats returns the statistics of the named rule.
func ruleStats(t *testing.T, st Stats, name string) RuleStats {
	t.Helper()
	for _, r := range st.Rules {
		if r.Rule == name {
			return r
		}
	}
	t.Fatalf("no statistics for rule %s", name)
	return RuleStats{}
}

// reluPair builds two Relus on one path, directly or through a Sigmoid.
func reluPair(throughSigmoid bool) func(b *graph.Builder) {
	return func(b *graph.Builder) {
		x := b.Input("x", graph.Float32, 2, 3, 4)
		r := b.Op("Relu", []*graph.Value{x}, nil)
		if throughSigmoid {
			r = b.Op("Sigmoid", []*graph.Value{r}, nil)
		}
		b.Output(b.Op("Relu", []*graph.Value{r}, nil))
	}
}

// threeMatMuls builds three MatMuls of one input x [4, 8], the i-th by
// the weight w(b, i).
func threeMatMuls(w func(b *graph.Builder, i int) *graph.Value) func(b *graph.Builder) {
	return func(b *graph.Builder) {
		x := b.Input("x", graph.Float32, 4, 8)
		var outs []*graph.Value
		for i := range 3 {
			outs = append(outs, b.Op("MatMul", []*graph.Value{x, w(b, i)}, nil))
		}
		b.Output(outs...)
	}
}

func TestEngineRejections(t *testing.T) {
	shipped := shippedRules(t)
	mine := parseTestRules(t)
	tests := []struct {
		name  string
		set   *rules.Set
		rule  string
		graph func(b *graph.Builder)
		// full enumerates every pair of a pair rule (no pruning).
		full bool
		// want: matches, candidates and rejections of the rule, and the
		// scan positions pruned.
		matches, cands int
		rejects        map[Reject]int
		pruned         int
	}{
		{
			// Two Relus in a chain: merging them would feed the second
			// Relu's input (the first's output) from the merged result.
			name: "cycle", set: shipped, rule: "relu-merge-cols", full: true,
			graph:   reluPair(false),
			matches: 2, cands: 0, rejects: map[Reject]int{RejectSymmetric: 1, RejectCycle: 1},
		},
		{
			// The second Relu reads the first through a Sigmoid: the
			// merged Relus would feed themselves.
			name: "cycle through a node", set: shipped, rule: "relu-merge-cols", full: true,
			graph:   reluPair(true),
			matches: 2, cands: 0, rejects: map[Reject]int{RejectSymmetric: 1, RejectCycle: 1},
		},
		{
			// The same pairs are skipped before matching by default.
			name: "cycle pruned", set: shipped, rule: "relu-merge-cols",
			graph: reluPair(false), pruned: 2,
		},
		{
			name: "cycle through a node pruned", set: shipped, rule: "relu-merge-cols",
			graph: reluPair(true), pruned: 2,
		},
		{
			// The MatMul's output is also read by a Relu outside the
			// match and is not a source output.
			name: "external use", set: shipped, rule: "matmul-add-to-gemm",
			graph: func(b *graph.Builder) {
				x := b.Input("x", graph.Float32, 4, 8)
				m := b.Op("MatMul", []*graph.Value{x, b.Const("w", randConst(1, 8, 5))}, nil)
				b.Output(b.Op("Add", []*graph.Value{m, b.Const("c", randConst(2, 5))}, nil), b.Op("Relu", []*graph.Value{m}, nil))
			},
			matches: 0, cands: 0, rejects: map[Reject]int{RejectExternal: 1},
		},
		{
			// Three MatMuls sharing x match matmul-merge3 in 6 orders.
			name: "symmetric", set: shipped, rule: "matmul-merge3",
			graph: threeMatMuls(func(b *graph.Builder, i int) *graph.Value {
				return b.Const("w", randConst(uint64(i), 8, 3+i))
			}),
			matches: 6, cands: 1, rejects: map[Reject]int{RejectSymmetric: 5},
		},
		{
			// Relu(Relu(Relu(x))): both places give Relu(Relu(x)).
			name: "duplicate", set: mine, rule: "relu-idem",
			graph: func(b *graph.Builder) {
				x := b.Input("x", graph.Float32, 2, 3)
				y := x
				for range 3 {
					y = b.Op("Relu", []*graph.Value{y}, nil)
				}
				b.Output(y)
			},
			matches: 2, cands: 1, rejects: map[Reject]int{RejectDuplicate: 1},
		},
		{
			// Multiplying a constant by 1 folds back to the same graph.
			name: "unchanged", set: mine, rule: "add-same",
			graph: func(b *graph.Builder) {
				x := b.Input("x", graph.Float32, 2, 3)
				b.Output(b.Op("Add", []*graph.Value{x, b.Const("c", randConst(3, 2, 3))}, nil))
			},
			matches: 1, cands: 0, rejects: map[Reject]int{RejectUnchanged: 1},
		},
		{
			// A candidate over the node cap is rejected.
			name: "size", set: shipped, rule: "matmul-merge3",
			graph: threeMatMuls(func(b *graph.Builder, i int) *graph.Value {
				return b.Op("Relu", []*graph.Value{b.Input("w"+string(rune('a'+i)), graph.Float32, 8, 2)}, nil)
			}),
			matches: 6, cands: 0, rejects: map[Reject]int{RejectSymmetric: 5, RejectSize: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := graphtest.Build(t, tc.graph)
			before := g.CanonicalHash()
			opts := Options{Rules: []string{tc.rule}, Eval: executor.Evaluate}
			if tc.name == "size" {
				opts.MaxNodes = len(g.Nodes) - 1
			}
			e, err := NewEngineChecked(tc.set, opts)
			if err != nil {
				t.Fatal(err)
			}
			e.noPrune = tc.full
			cands, st, err := e.CandidatesWithStats(g)
			if err != nil {
				t.Fatal(err)
			}
			rs := ruleStats(t, st, tc.rule)
			if rs.Pruned != tc.pruned {
				t.Errorf("pruned %d, want %d", rs.Pruned, tc.pruned)
			}
			if rs.Matches != tc.matches || rs.Candidates != tc.cands || len(cands) != tc.cands {
				t.Errorf("matches %d, candidates %d (%d returned); want %d, %d", rs.Matches, rs.Candidates, len(cands), tc.matches, tc.cands)
			}
			for reason, n := range tc.rejects {
				if rs.Rejected[reason] != n {
					t.Errorf("rejected for %s: %d, want %d (all: %v)", reason, rs.Rejected[reason], n, rs.Rejected)
				}
			}
			for reason, n := range rs.Rejected {
				if tc.rejects[reason] == 0 && n > 0 {
					t.Errorf("unexpected rejections for %s: %d", reason, n)
				}
			}
			checkCandidates(t, g, cands, true, 1)
			if g.CanonicalHash() != before {
				t.Error("the input graph was modified")
			}
		})
	}
}

// TestEngineReorders rewrites two Relus far apart whose merge must move a
// reader of the first Relu after the merged nodes.
func TestEngineReorders(t *testing.T) {
	g := graphtest.Build(t, func(b *graph.Builder) {
		x := b.Input("x", graph.Float32, 2, 3, 4)
		a := b.Op("Relu", []*graph.Value{x}, nil)
		ta := b.Op("Tanh", []*graph.Value{a}, nil)
		s := b.Op("Sigmoid", []*graph.Value{x}, nil)
		c := b.Op("Relu", []*graph.Value{s}, nil)
		b.Output(ta, c)
	})
	cands := shippedCandidates(t, g, "relu-merge-cols")
	if len(cands) != 1 {
		t.Fatalf("%d candidates, want 1", len(cands))
	}
	checkCandidates(t, g, cands, true, 1)
}

// TestEngineNeverMatchesOpaque checks that opaque nodes (even with a
// schema op's name) are matched neither by scanning nor through
// producers and consumers.
func TestEngineNeverMatchesOpaque(t *testing.T) {
	set := parseTestRules(t)
	for _, opaque := range []int{0, 1, 2} {
		g := graphtest.Build(t, func(b *graph.Builder) {
			x := b.Input("x", graph.Float32, 2, 3)
			y := b.Op("Relu", []*graph.Value{x}, nil)
			b.Output(b.Op("Relu", []*graph.Value{y}, nil))
		})
		if opaque > 0 {
			g.Nodes[opaque-1].Opaque = []byte{0x3a, 0x04, 'R', 'e', 'l', 'u'}
		}
		e := NewEngine(set, Options{Rules: []string{"relu-idem"}, Eval: executor.Evaluate})
		cands, st, err := e.CandidatesWithStats(g)
		if err != nil {
			t.Fatal(err)
		}
		want := 1
		if opaque > 0 {
			want = 0
		}
		if st.Matches != want || len(cands) != want {
			t.Errorf("opaque node %d: %d matches, %d candidates; want %d", opaque, st.Matches, len(cands), want)
		}
	}
}

// TestEngineDeterministic checks that candidates come in the same order
// with the same hashes on every call and for any number of workers.
func TestEngineDeterministic(t *testing.T) {
	set := shippedRules(t)
	g := zooGraph(t, "squeezenet")
	var first []Candidate
	for _, workers := range []int{1, 2, 3, 2} {
		cands, err := NewEngine(set, Options{Workers: workers, Eval: executor.Evaluate}).Candidates(g)
		if err != nil {
			t.Fatal(err)
		}
		if len(cands) == 0 {
			t.Fatal("no candidates")
		}
		if first == nil {
			first = cands
			continue
		}
		if len(cands) != len(first) {
			t.Fatalf("workers %d: %d candidates, first run %d", workers, len(cands), len(first))
		}
		for i := range cands {
			if cands[i].Rule != first[i].Rule || cands[i].Hash != first[i].Hash {
				t.Fatalf("workers %d: candidate %d is %s %v, first run %s %v", workers, i, cands[i].Rule, cands[i].Hash, first[i].Rule, first[i].Hash)
			}
		}
	}
	// Rule order.
	order := map[string]int{}
	for i, r := range set.Rules {
		order[r.Name] = i
	}
	for i := 1; i < len(first); i++ {
		if order[first[i].Rule] < order[first[i-1].Rule] {
			t.Fatalf("candidate %d (%s) comes after one of rule %s", i, first[i].Rule, first[i-1].Rule)
		}
	}
}

func TestEngineOptions(t *testing.T) {
	set := shippedRules(t)
	if _, err := NewEngineChecked(set, Options{Rules: []string{"no-such-rule"}, Eval: executor.Evaluate}); err == nil || !strings.Contains(err.Error(), "no-such-rule") {
		t.Errorf("unknown rule: error %v", err)
	}
	e := NewEngine(set, Options{Rules: []string{"relu-merge-cols", "conv-bn-fold"}, Eval: executor.Evaluate})
	if got := strings.Join(e.Rules(), ","); got != "conv-bn-fold,relu-merge-cols" && got != "relu-merge-cols,conv-bn-fold" {
		t.Errorf("rules %s", got)
	}
	all := NewEngine(set, Options{Eval: executor.Evaluate}).Rules()
	if len(all) != len(set.Rules)-len(set.CanonicalNames()) || len(set.CanonicalNames()) == 0 {
		t.Errorf("an engine without a filter has %d rules, want every rule but the %d canonicalisation rules of %d", len(all), len(set.CanonicalNames()), len(set.Rules))
	}
	for _, name := range set.CanonicalNames() {
		if slices.Contains(all, name) {
			t.Errorf("an engine without a filter matches the canonicalisation rule %s", name)
		}
	}
	canon := set.CanonicalNames()[0]
	if got := NewEngine(set, Options{Rules: []string{canon}, Eval: executor.Evaluate}).Rules(); !slices.Equal(got, []string{canon}) {
		t.Errorf("an engine asked for %s has rules %v", canon, got)
	}
	if _, err := NewEngine(set, Options{Eval: executor.Evaluate}).Candidates(nil); err == nil {
		t.Error("nil graph: no error")
	}
}

func TestWriteCandidateTable(t *testing.T) {
	g := zooGraph(t, "bert")
	_, st, err := NewEngine(shippedRules(t), Options{Eval: executor.Evaluate}).CandidatesWithStats(g)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteCandidateTable(&buf, st); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"RULE", "MATCHES", "CANDIDATES", "linear-merge3", "symmetric=10", "total", "67 nodes"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "conv-bn-fold") {
		t.Errorf("table lists a rule without matches:\n%s", out)
	}
}

// TestEngineFoldMemo checks that a second generation takes its folds from
// the memo and that the memo changes no candidate, also when it must
// evict.
func TestEngineFoldMemo(t *testing.T) {
	set := shippedRules(t)
	g := zooGraph(t, "bert")
	plain, err := NewEngine(set, Options{MemoBytes: -1, Eval: executor.Evaluate}).Candidates(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int64{0, 600 << 10} {
		e := NewEngine(set, Options{MemoBytes: budget, Eval: executor.Evaluate})
		for gen := range 3 {
			cands, st, err := e.CandidatesWithStats(g)
			if err != nil {
				t.Fatal(err)
			}
			if len(cands) != len(plain) {
				t.Fatalf("budget %d, generation %d: %d candidates, %d without memo", budget, gen, len(cands), len(plain))
			}
			for i := range cands {
				if cands[i].Hash != plain[i].Hash {
					t.Fatalf("budget %d, generation %d: candidate %d differs from the one without memo", budget, gen, i)
				}
			}
			switch {
			case gen == 0 && st.MemoMisses == 0:
				t.Errorf("budget %d, first generation: no misses", budget)
			case gen > 0 && budget == 0 && st.MemoMisses != 0:
				t.Errorf("generation %d: %d misses with an ample memo", gen, st.MemoMisses)
			case gen > 0 && st.MemoHits == 0:
				t.Errorf("budget %d, generation %d: no memo hits", budget, gen)
			}
			if e.memo.bytes > e.memo.budget {
				t.Errorf("memo holds %d bytes, budget %d", e.memo.bytes, e.memo.budget)
			}
		}
	}
}
