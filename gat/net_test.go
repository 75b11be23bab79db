package gat

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat/nn"
	"github.com/xrl-dev/xrl/internal/ckframe"
)

func testNet(t *testing.T, cfg Config) *Net {
	t.Helper()
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func smallConfig() Config {
	return Config{Layers: 3, Hidden: 16, Heads: 4, HeadHidden: []int{32, 16}, Seed: 7}
}

func TestMasking(t *testing.T) {
	n := testNet(t, smallConfig())
	rng := rand.New(rand.NewPCG(1, 1))
	obs := synthObs(rng, 20, 26, 6, 10, false, true)
	obs.Mask[obs.NoOp()] = false
	b, err := n.Forward([]*env.Observation{obs})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Logits[0]) != len(obs.Mask) {
		t.Fatalf("%d logits for %d actions", len(b.Logits[0]), len(obs.Mask))
	}
	var h float64
	for a, ok := range obs.Mask {
		l, p := b.Logits[0][a], math.Exp(float64(b.LogProbs[0][a]))
		if !ok {
			if l != nn.MaskedLogit || p != 0 {
				t.Errorf("masked action %d: logit %v, probability %v", a, l, p)
			}
			continue
		}
		h -= p * float64(b.LogProbs[0][a])
	}
	if math.Abs(h-float64(b.Entropies[0])) > 1e-5 {
		t.Errorf("entropy %v, want %v from the valid actions", b.Entropies[0], h)
	}
	for i := 0; i < 2000; i++ {
		a, lp, _, err := n.Act(obs, rng, false)
		if err != nil {
			t.Fatal(err)
		}
		if !obs.Mask[a] {
			t.Fatalf("sampled masked action %d", a)
		}
		if lp != b.LogProbs[0][a] {
			t.Fatalf("Act log-prob %v, Forward %v", lp, b.LogProbs[0][a])
		}
	}
	a, _, _, _ := n.Act(obs, nil, true)
	for i, ok := range obs.Mask {
		if ok && b.LogProbs[0][i] > b.LogProbs[0][a] {
			t.Errorf("greedy action %d is not the most probable (%d is)", a, i)
		}
	}
}

func TestPermutationInvariance(t *testing.T) {
	n := testNet(t, smallConfig())
	rng := rand.New(rand.NewPCG(2, 2))
	obs := synthObs(rng, 30, 40, 7, 9, false, false)
	obs.Mask[3] = false
	perm := rng.Perm(len(obs.Candidates))
	p := &env.Observation{Current: obs.Current, Mask: make([]bool, len(obs.Mask))}
	p.Mask[p.NoOp()] = obs.Mask[obs.NoOp()]
	for i, j := range perm { // candidate i of obs is candidate j of p
		for len(p.Candidates) <= j {
			p.Candidates = append(p.Candidates, nil)
		}
		p.Candidates[j] = obs.Candidates[i]
		p.Mask[j] = obs.Mask[i]
	}
	b, err := n.Forward([]*env.Observation{obs, p})
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range perm {
		if !close32(b.Logits[0][i], b.Logits[1][j]) {
			t.Errorf("candidate %d: logit %v, permuted to %d: %v", i, b.Logits[0][i], j, b.Logits[1][j])
		}
	}
	noop := obs.NoOp()
	if !close32(b.Logits[0][noop], b.Logits[1][noop]) || !close32(b.Values[0], b.Values[1]) {
		t.Errorf("No-Op logit or value changed under permutation")
	}
}

func close32(a, b float32) bool {
	return math.Abs(float64(a-b)) <= 1e-5*math.Max(1, math.Abs(float64(a)))
}

// TestBatchingEquivalence: encoding observations one by one, all in one
// batch, and with sharing off gives the same outputs.
func TestBatchingEquivalence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	obs := []*env.Observation{
		synthObs(rng, 40, 55, 5, 8, false, true),
		synthObs(rng, 25, 30, 3, 8, true, false),
		synthObs(rng, 60, 80, 8, 8, false, false),
	}
	cfg := smallConfig()
	n := testNet(t, cfg)
	cfg.NoShare = true
	plain := testNet(t, cfg)
	all, err := n.Forward(obs)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := plain.Forward(obs)
	if err != nil {
		t.Fatal(err)
	}
	for o, ob := range obs {
		one, err := n.Forward([]*env.Observation{ob})
		if err != nil {
			t.Fatal(err)
		}
		for _, other := range []*Batch{all, flat} {
			if !close32(one.Values[0], other.Values[o]) || !close32(one.Entropies[0], other.Entropies[o]) {
				t.Errorf("observation %d: value/entropy %v/%v alone, %v/%v batched", o, one.Values[0], one.Entropies[0], other.Values[o], other.Entropies[o])
			}
			for a := range ob.Mask {
				if !close32(one.Logits[0][a], other.Logits[o][a]) {
					t.Errorf("observation %d action %d: logit %v alone, %v batched", o, a, one.Logits[0][a], other.Logits[o][a])
				}
			}
		}
	}
}

// TestSharing: rewrite-like candidates share most of their node rows;
// independent graphs share little.
func TestSharing(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	n := testNet(t, DefaultConfig())
	for _, tc := range []struct {
		independent bool
		maxRatio    float64
	}{{false, 0.5}, {true, 1}} {
		b, err := n.Forward([]*env.Observation{synthObs(rng, 300, 400, 32, 32, tc.independent, false)})
		if err != nil {
			t.Fatal(err)
		}
		s := b.Stats()
		if s.Graphs != 33 {
			t.Errorf("%d graphs encoded, want 33", s.Graphs)
		}
		t.Logf("independent=%v: %d graphs, %d nodes, %d rows per layer", tc.independent, s.Graphs, s.Nodes, s.Rows)
		if r := float64(s.Rows) / float64(s.Nodes); r > tc.maxRatio {
			t.Errorf("independent=%v: %d rows for %d nodes (ratio %.2f > %.2f)", tc.independent, s.Rows, s.Nodes, r, tc.maxRatio)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	n := testNet(t, smallConfig())
	// Move the parameters away from their initial values.
	for _, p := range n.Params() {
		for i := range p.Value {
			p.Value[i] += 0.01 * float32(i%7)
		}
	}
	var buf bytes.Buffer
	if err := n.Save(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	m, err := Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := m.Save(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again.Bytes()) {
		t.Fatal("save → load → save changed the bytes")
	}
	obs := synthObs(rand.New(rand.NewPCG(5, 5)), 20, 25, 4, 6, false, false)
	b1, _ := n.Forward([]*env.Observation{obs})
	b2, _ := m.Forward([]*env.Observation{obs})
	for a := range b1.Logits[0] {
		if b1.Logits[0][a] != b2.Logits[0][a] {
			t.Errorf("logit %d: %v before, %v after loading", a, b1.Logits[0][a], b2.Logits[0][a])
		}
	}
	// File round trip.
	path := t.TempDir() + "/policy.ckpt"
	if err := n.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path + ".missing"); err == nil {
		t.Error("loading a missing file succeeded")
	}

	// Structural checks are reached when the checksum is recomputed
	// after the change; without that, the checksum catches it.
	body := data[:len(data)-4]
	nan := bytes.Clone(body)
	copy(nan[len(nan)-4:], []byte{0, 0, 0xc0, 0x7f})
	other := bytes.Clone(body)
	other[bytes.Index(other, []byte("gat0.w"))+3] = '9'
	flipped := bytes.Clone(data)
	flipped[len(flipped)-40] ^= 0x10
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", "not an xrl policy checkpoint", nil},
		{"magic", "not an xrl policy checkpoint", append([]byte("xrl-gbt\n"), data[8:]...)},
		{"old version", "version 1, this build reads version 2", append(append([]byte(checkpointMagic), 1, 0, 0, 0), data[12:]...)},
		{"truncated", "checksum mismatch", data[:len(data)-3]},
		{"truncated config", "truncated", withSum(data[:20])},
		{"trailing", "trailing data", withSum(append(bytes.Clone(body), 0))},
		{"nan", "is NaN", withSum(nan)},
		{"renamed", `parameter "gat9.w"`, withSum(other)},
		{"bit flip in a weight", "checksum mismatch", flipped},
	} {
		_, err := Load(bytes.NewReader(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// withSum appends the checkpoint checksum of body.
func withSum(body []byte) []byte {
	return ckframe.AppendChecksum(bytes.Clone(body))
}

func TestDeterminism(t *testing.T) {
	save := func(n *Net) []byte {
		var b bytes.Buffer
		if err := n.Save(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	cfg := smallConfig()
	a, b := testNet(t, cfg), testNet(t, cfg)
	if !bytes.Equal(save(a), save(b)) {
		t.Error("two networks with one seed differ")
	}
	cfg.Seed++
	if bytes.Equal(save(a), save(testNet(t, cfg))) {
		t.Error("networks with different seeds are equal")
	}
	obs := synthObs(rand.New(rand.NewPCG(6, 6)), 20, 25, 6, 6, false, false)
	actions := func(n *Net) []int {
		rng := rand.New(rand.NewPCG(9, 9))
		var out []int
		for i := 0; i < 50; i++ {
			act, _, _, err := n.Act(obs, rng, false)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, act)
		}
		return out
	}
	x, y := actions(a), actions(b)
	for i := range x {
		if x[i] != y[i] {
			t.Fatalf("step %d: actions %d and %d under one seed", i, x[i], y[i])
		}
	}
	// Clones act alike, and are independent.
	c := a.Clone()
	if !bytes.Equal(save(a), save(c)) {
		t.Error("clone differs")
	}
	c.Params()[0].Value[0] += 1
	if bytes.Equal(save(a), save(c)) {
		t.Error("clone shares parameters")
	}
}

func TestForwardErrors(t *testing.T) {
	n := testNet(t, smallConfig())
	rng := rand.New(rand.NewPCG(7, 7))
	good := func() *env.Observation { return synthObs(rng, 10, 12, 2, 4, false, false) }
	for _, tc := range []struct {
		name, want string
		edit       func(o *env.Observation)
	}{
		{"no current", "no current graph", func(o *env.Observation) { o.Current = nil }},
		{"short mask", "mask of 2 entries", func(o *env.Observation) { o.Mask = o.Mask[:2] }},
		{"no candidate", "action 3 is valid but has no candidate", func(o *env.Observation) { o.Mask[3] = true }},
		{"nil candidate", "action 1 is valid but has no candidate", func(o *env.Observation) { o.Candidates[1] = nil }},
		{"all masked", "no valid action", func(o *env.Observation) { clear(o.Mask) }},
		{"bad edge", "candidate 0: graph tensor: edge 0", func(o *env.Observation) { o.Candidates[0].Senders[0] = 999 }},
		{"bad class", "current graph: graph tensor: node 0", func(o *env.Observation) { o.Current.NodeClass[0] = -1 }},
	} {
		o := good()
		tc.edit(o)
		_, err := n.Forward([]*env.Observation{good(), o})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "observation 1") {
			t.Errorf("%s: error %v, want one about observation 1 containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := n.Forward(nil); err == nil {
		t.Error("no observations: no error")
	}
	if _, _, _, err := n.Act(good(), nil, false); err == nil {
		t.Error("sampling without a generator: no error")
	}
	// An agent returns the network's errors (and No-Op).
	o := good()
	o.Current = nil
	ag := NewPolicyAgent(n, 1, false)
	if a, err := ag.Act(o); a != o.NoOp() || err == nil {
		t.Errorf("agent on a bad observation: action %d, err %v", a, err)
	}
}

func TestBackwardErrors(t *testing.T) {
	n := testNet(t, smallConfig())
	obs := synthObs(rand.New(rand.NewPCG(8, 8)), 10, 12, 4, 4, false, true)
	b, err := n.Forward([]*env.Observation{obs})
	if err != nil {
		t.Fatal(err)
	}
	one := []float32{1}
	for _, tc := range []struct {
		name    string
		actions []int
		d       []float32
	}{
		{"masked action", []int{1}, one},
		{"out of range", []int{9}, one},
		{"lengths", []int{0}, []float32{1, 2}},
	} {
		if err := n.Backward(b, tc.actions, tc.d, one, one); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if err := n.Backward(&Batch{}, []int{0}, one, one, one); err == nil {
		t.Error("backward without forward: no error")
	}
	if err := n.Clone().Backward(b, []int{0}, one, one, one); err == nil {
		t.Error("backward on another network's batch: no error")
	}
	if err := n.ForwardTo(b, nil); err == nil {
		t.Fatal("forward without observations: no error")
	}
	if err := n.Backward(b, []int{0}, one, one, one); err == nil {
		t.Error("backward after a failed forward: no error")
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Hidden: 10, Heads: 3},
		{Layers: -1},
		{PoolScale: math.NaN()},
		{HeadHidden: []int{0}},
		{Classes: -2},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

// TestLearns trains a small network to prefer, among rewrite-like
// candidates, the one whose graph has the most nodes: a PPO-free sanity
// check that gradients, Adam and the heads fit together.
func TestLearns(t *testing.T) {
	n := testNet(t, Config{Layers: 2, Hidden: 16, Heads: 2, HeadHidden: []int{32}, Seed: 1, PoolScale: 0.05})
	rng := rand.New(rand.NewPCG(10, 10))
	var obs []*env.Observation
	var best []int
	for i := 0; i < 8; i++ {
		o := synthObs(rng, 12, 15, 4, 4, false, false)
		k := rng.IntN(4)
		c := o.Candidates[k]
		for j := 0; j < 3; j++ {
			c = rewriteLike(rng, c)
		}
		o.Candidates[k] = c
		obs = append(obs, o)
		best = append(best, k)
	}
	opt := nn.NewAdam[float32](3e-3)
	d := make([]float32, len(obs))
	zero := make([]float32, len(obs))
	var first, last float32
	var b Batch
	for step := 0; step < 150; step++ {
		if err := n.ForwardTo(&b, obs); err != nil {
			t.Fatal(err)
		}
		var lp float32
		for o, a := range best {
			lp += b.LogProbs[o][a] / float32(len(obs))
			d[o] = -1 / float32(len(obs)) // minimise -mean log π(best)
		}
		if step == 0 {
			first = lp
		}
		last = lp
		n.ZeroGrad()
		if err := n.Backward(&b, best, d, zero, zero); err != nil {
			t.Fatal(err)
		}
		opt.Step(n.Params())
	}
	t.Logf("mean log π(best): %.3f → %.3f", first, last)
	if last < -0.3 || last < first+1 {
		t.Errorf("mean log π(best) went from %.3f to %.3f", first, last)
	}
}
