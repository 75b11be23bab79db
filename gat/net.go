package gat

import (
	"fmt"
	"sync"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat/nn"
)

// Param is one trainable tensor of a Net with its gradient buffer.
type Param = nn.Param[float32]

// Net is the policy and value network, in float32.
//
// Forward and Act only read the parameters and may run concurrently with
// each other. Backward accumulates into the gradient buffers and must not
// run concurrently with another Backward; an optimiser step changes the
// parameters and must not run concurrently with anything.
type Net struct {
	m     *model[float32]
	tapes sync.Pool // *tape[float32] for Act
	// rows keeps encoder rows between calls of Act (see rowCache).
	rows rowCache
}

// New returns a network with parameters initialised from cfg.Seed.
func New(cfg Config) (*Net, error) {
	m, err := newModel[float32](cfg)
	if err != nil {
		return nil, err
	}
	return &Net{m: m}, nil
}

// Config returns the network's configuration with defaults filled in.
func (n *Net) Config() Config {
	c := n.m.cfg
	c.HeadHidden = append([]int(nil), c.HeadHidden...)
	return c
}

// Params returns the trainable tensors in a fixed order (the order of
// checkpoints). The returned Params are the network's own: optimisers
// update Value in place.
func (n *Net) Params() []*Param { return n.m.params }

// ZeroGrad clears all gradient buffers.
func (n *Net) ZeroGrad() { nn.ZeroGrad(n.m.params) }

// Clone returns an independent copy of the network with the same
// parameter values and zero gradients.
func (n *Net) Clone() *Net {
	c, err := New(n.m.cfg)
	if err != nil {
		panic(fmt.Sprintf("gat: cloning a valid config failed: %v", err)) // cannot happen
	}
	for i, p := range n.m.params {
		copy(c.m.params[i].Value, p.Value)
	}
	return c
}

// Batch is the result of a forward pass over a batch of observations. It
// also records what Backward needs; Backward needs the Batch of the same
// Net with unchanged parameters.
type Batch struct {
	// Logits[o] has one entry per action of observation o (len(Mask));
	// masked actions hold nn.MaskedLogit.
	Logits [][]float32
	// LogProbs[o] are the log-probabilities of the actions of observation
	// o; masked actions have probability 0.
	LogProbs [][]float32
	// Values[o] is the value estimate of observation o.
	Values []float32
	// Entropies[o] is the entropy of the action distribution of
	// observation o (masked actions contribute nothing).
	Entropies []float32

	t *tape[float32]
}

// Stats reports the size of a forward pass: graphs encoded, their nodes,
// and the node rows per GAT layer after sharing. Computed is the number of
// rows of all levels (node update and GAT layers) the pass computed: all
// of them, less those an Act found in its cache of earlier rows.
type Stats struct {
	Graphs, Nodes, Rows, Computed int
}

// Stats returns the size of the forward pass that produced b.
func (b *Batch) Stats() Stats {
	if b.t == nil {
		return Stats{}
	}
	p := &b.t.plan
	s := Stats{Graphs: p.graphs, Nodes: int(p.b.nodeOff[p.graphs]), Computed: b.t.computed}
	for l := range p.levels {
		s.Rows += p.levels[l].NOut
	}
	if len(p.levels) > 0 {
		s.Rows /= len(p.levels)
	}
	return s
}

// Forward runs the network on obs. It returns an error naming the
// observation when one is malformed: no current graph, a mask shorter
// than the candidates plus No-Op, a valid action without a candidate, a
// graph tensor that fails Check or uses an unknown class, or no valid
// action at all.
func (n *Net) Forward(obs []*env.Observation) (*Batch, error) {
	b := &Batch{}
	return b, n.ForwardTo(b, obs)
}

// ForwardTo is Forward writing into b, reusing its buffers: a caller
// that keeps one Batch per minibatch slot allocates nothing in steady
// state beyond small per-call bookkeeping. b's previous contents are
// overwritten.
func (n *Net) ForwardTo(b *Batch, obs []*env.Observation) error {
	return n.forwardTo(b, obs, false)
}

// forwardTo is ForwardTo; with cached, the encoder reuses the rows of
// earlier calls (rowCache) when no other call is using them, and the
// Batch cannot be given to Backward.
func (n *Net) forwardTo(b *Batch, obs []*env.Observation, cached bool) error {
	if b.t == nil {
		b.t = &tape[float32]{}
	}
	t := b.t
	if err := t.load(obs, n.m.cfg.Classes); err != nil {
		return err
	}
	if cached && !n.m.cfg.NoShare && n.rows.mu.TryLock() {
		t.plan.build(t.graphs, n.m.cfg.Layers, true)
		n.rows.prepare(n.m)
		cachedEncode(t, n.m, &n.rows)
		n.rows.mu.Unlock()
		t.pool(n.m)
		t.heads(n.m)
		t.owner = nil
	} else {
		t.forward(n.m)
		t.computed = t.plan.rows(0)
		for l := range t.plan.levels {
			t.computed += t.plan.levels[l].NOut
		}
	}
	B := len(obs)
	b.Logits = growRows(b.Logits, B)
	b.LogProbs = growRows(b.LogProbs, B)
	for o := range B {
		lo, hi := t.logOff[o], t.logOff[o+1]
		b.Logits[o] = t.logits[lo:hi:hi]
		b.LogProbs[o] = t.logp[lo:hi:hi]
	}
	b.Values = t.values[:B:B]
	b.Entropies = t.entropies[:B:B]
	return nil
}

func growRows(x [][]float32, n int) [][]float32 {
	if cap(x) >= n {
		return x[:n]
	}
	return make([][]float32, n)
}

// Backward accumulates into the parameters' gradients the gradient of
//
//	Σ_o dLogProb[o]·log π(actions[o] | o) + dEntropy[o]·H(o) + dValue[o]·V(o)
//
// over the observations of b. A PPO loss supplies dL/dlogπ, dL/dH and
// dL/dV per sample. actions[o] must be a valid action of observation o.
func (n *Net) Backward(b *Batch, actions []int, dLogProb, dEntropy, dValue []float32) error {
	if b == nil || b.t == nil || b.t.owner == nil {
		return fmt.Errorf("gat: backward without a successful forward pass")
	}
	if b.t.owner != n.m {
		return fmt.Errorf("gat: backward on a batch of another network")
	}
	t := b.t
	B := len(t.masks)
	if len(actions) != B || len(dLogProb) != B || len(dEntropy) != B || len(dValue) != B {
		return fmt.Errorf("gat: backward over %d observations got %d actions, %d/%d/%d gradients",
			B, len(actions), len(dLogProb), len(dEntropy), len(dValue))
	}
	for o, a := range actions {
		if a < 0 || a >= len(t.masks[o]) || !t.masks[o][a] {
			return fmt.Errorf("gat: observation %d: action %d is not a valid action", o, a)
		}
	}
	t.backward(n.m, actions, dLogProb, dEntropy, dValue)
	return nil
}
