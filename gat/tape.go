package gat

import (
	"fmt"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat/nn"
)

// tape is one forward pass over a batch of observations: the outputs and
// everything the backward pass needs. Buffers are reused across passes.
type tape[F nn.Float] struct {
	// owner is the model of the last successful forward pass (nil after a
	// failed one).
	owner  *model[F]
	plan   plan
	graphs []*env.GraphTensor
	// Per observation: its mask, the graph index of its current graph and
	// the offset of its logits in the flat arrays.
	masks  [][]bool
	cur    []int32
	logOff []int32
	// Per policy row (one per valid action): the flat logit index, the
	// row of the candidate table (graph index, or the number of graphs for
	// No-Op) and the current graph's index.
	rowAct, rowCand, rowCur []int32

	// Encoder.
	aggE        []F
	h           [][]F // h[l]: rows of level l
	gc          []nn.GATCache[F]
	gs          nn.GATScratch[F]
	poolW       []F
	pooled, gin []F
	emb, table  []F

	// The cached encoder's scratch (see rowCache): row ids of two
	// levels, a key, the part of a level to compute and its inputs.
	ids         [2][]int32
	key         []int32
	sub         nn.Graph
	subIn       []int32
	hIn, rowTmp []F
	gcTmp       nn.GATCache[F]
	computed    int // rows computed (Stats.Computed)

	// Heads.
	polIn, valIn                     []F
	polC, valC                       nn.MLPCache[F]
	logits, logp, values, entropies  []F
	dLogits, dScores, dPolIn, dValIn []F
	dTable, dValue, dGin, dGemb      []F
	dhA, dhB                         []F
}

// load validates the observations and lists the graphs to encode.
func (t *tape[F]) load(obs []*env.Observation, classes int) error {
	t.owner = nil
	if len(obs) == 0 {
		return fmt.Errorf("gat: no observations")
	}
	t.graphs = t.graphs[:0]
	t.masks = t.masks[:0]
	t.cur = t.cur[:0]
	t.logOff = append(t.logOff[:0], 0)
	t.rowAct, t.rowCand, t.rowCur = t.rowAct[:0], t.rowCand[:0], t.rowCur[:0]
	var noops []int32 // policy rows of No-Op actions; their table row is fixed below
	for o, ob := range obs {
		if ob == nil || ob.Current == nil {
			return fmt.Errorf("gat: observation %d has no current graph", o)
		}
		if len(ob.Mask) < len(ob.Candidates)+1 {
			return fmt.Errorf("gat: observation %d: mask of %d entries for %d candidates and No-Op", o, len(ob.Mask), len(ob.Candidates))
		}
		if err := checkGraph(ob.Current, classes); err != nil {
			return fmt.Errorf("gat: observation %d current graph: %w", o, err)
		}
		cur := int32(len(t.graphs))
		t.graphs = append(t.graphs, ob.Current)
		base := t.logOff[o]
		valid := false
		for a, ok := range ob.Mask {
			if !ok {
				continue
			}
			valid = true
			t.rowAct = append(t.rowAct, base+int32(a))
			t.rowCur = append(t.rowCur, cur)
			if a == len(ob.Mask)-1 {
				noops = append(noops, int32(len(t.rowCand)))
				t.rowCand = append(t.rowCand, -1)
				continue
			}
			if a >= len(ob.Candidates) || ob.Candidates[a] == nil {
				return fmt.Errorf("gat: observation %d: action %d is valid but has no candidate graph", o, a)
			}
			if err := checkGraph(ob.Candidates[a], classes); err != nil {
				return fmt.Errorf("gat: observation %d candidate %d: %w", o, a, err)
			}
			t.rowCand = append(t.rowCand, int32(len(t.graphs)))
			t.graphs = append(t.graphs, ob.Candidates[a])
		}
		if !valid {
			return fmt.Errorf("gat: observation %d has no valid action", o)
		}
		t.masks = append(t.masks, ob.Mask)
		t.cur = append(t.cur, cur)
		t.logOff = append(t.logOff, base+int32(len(ob.Mask)))
	}
	for _, r := range noops {
		t.rowCand[r] = int32(len(t.graphs))
	}
	return nil
}

func checkGraph(g *env.GraphTensor, classes int) error {
	if err := g.Check(); err != nil {
		return err
	}
	for i, c := range g.NodeClass {
		if int(c) >= classes {
			return fmt.Errorf("node %d has class %d but the network knows %d classes", i, c, classes)
		}
	}
	return nil
}

// forward runs the network on the loaded observations.
func (t *tape[F]) forward(m *model[F]) {
	t.plan.build(t.graphs, m.cfg.Layers, !m.cfg.NoShare)
	t.encode(m)
	t.pool(m)
	t.heads(m)
	t.owner = m
}

// encode computes the rows of every level (t.h).
func (t *tape[F]) encode(m *model[F]) {
	p := &t.plan
	hd := m.cfg.Hidden
	n0 := p.rows(0)
	t.aggE = nn.Grow(t.aggE, len(p.aggE))
	for i, v := range p.aggE {
		t.aggE[i] = F(v)
	}
	for len(t.h) < len(p.levels)+1 {
		t.h = append(t.h, nil)
	}
	if len(t.gc) < len(p.levels) {
		t.gc = append(t.gc, make([]nn.GATCache[F], len(p.levels)-len(t.gc))...)
	}
	// Node update (activations are applied in place; backward passes read
	// the activation's slope from the sign of its output).
	t.h[0] = nn.Grow(t.h[0], n0*hd)
	m.node.Forward(t.aggE, n0, t.h[0])
	for i, c := range p.class0 {
		e := m.emb.Value[int(c)*hd : int(c+1)*hd]
		row := t.h[0][i*hd : (i+1)*hd]
		for k, v := range e {
			row[k] += v
		}
	}
	nn.LeakyReLU(t.h[0], t.h[0], actSlope)
	// GAT layers.
	for l := range p.levels {
		t.h[l+1] = nn.Grow(t.h[l+1], p.levels[l].NOut*hd)
		m.gat[l].Forward(&p.levels[l], t.h[l], &t.gc[l], t.h[l+1])
	}
}

// pool computes the embedding of every graph into t.emb (graphs×Hidden)
// from the last level's rows.
func (t *tape[F]) pool(m *model[F]) {
	p := &t.plan
	hd := m.cfg.Hidden
	// Global update.
	G := p.graphs
	t.poolW = nn.Grow(t.poolW, len(p.poolCnt))
	for i, c := range p.poolCnt {
		t.poolW[i] = F(c * m.cfg.PoolScale)
	}
	t.pooled = nn.Grow(t.pooled, G*hd)
	nn.SegmentSum(t.h[len(p.levels)], hd, p.poolOff, p.poolIdx, t.poolW, t.pooled)
	gw := hd + env.GlobalDim
	t.gin = nn.Grow(t.gin, G*gw)
	for g := 0; g < G; g++ {
		copy(t.gin[g*gw:g*gw+hd], t.pooled[g*hd:(g+1)*hd])
		for k := 0; k < env.GlobalDim; k++ {
			t.gin[g*gw+hd+k] = F(p.global[g*env.GlobalDim+k])
		}
	}
	t.emb = nn.Grow(t.emb, G*hd)
	m.glob.Forward(t.gin, G, t.emb)
	nn.LeakyReLU(t.emb, t.emb, actSlope)
}

// heads computes logits, log-probabilities, entropies and values.
func (t *tape[F]) heads(m *model[F]) {
	hd := m.cfg.Hidden
	G := t.plan.graphs
	// Candidate table: graph embeddings, then the No-Op embedding.
	t.table = nn.Grow(t.table, (G+1)*hd)
	copy(t.table, t.emb[:G*hd])
	copy(t.table[G*hd:], m.noop.Value)
	R := len(t.rowAct)
	t.polIn = nn.Grow(t.polIn, R*2*hd)
	for r := 0; r < R; r++ {
		row := t.polIn[r*2*hd : (r+1)*2*hd]
		copy(row[:hd], t.table[int(t.rowCand[r])*hd:int(t.rowCand[r]+1)*hd])
		copy(row[hd:], t.emb[int(t.rowCur[r])*hd:int(t.rowCur[r]+1)*hd])
	}
	scores := m.pol.Forward(t.polIn, R, &t.polC)
	L := int(t.logOff[len(t.logOff)-1])
	t.logits = nn.Grow(t.logits, L)
	for i := range t.logits {
		t.logits[i] = nn.MaskedLogit
	}
	for r, a := range t.rowAct {
		t.logits[a] = scores[r]
	}
	B := len(t.masks)
	t.logp = nn.Grow(t.logp, L)
	t.entropies = nn.Grow(t.entropies, B)
	for o, mask := range t.masks {
		lo, hi := t.logOff[o], t.logOff[o+1]
		nn.LogSoftmax(t.logits[lo:hi], t.logp[lo:hi])
		t.entropies[o] = nn.MaskedEntropy(t.logp[lo:hi], mask)
	}
	t.valIn = nn.Grow(t.valIn, B*hd)
	nn.GatherRows(t.emb, hd, t.cur, t.valIn)
	t.values = m.val.Forward(t.valIn, B, &t.valC)
}

// backward accumulates the gradients of
// Σ_o dLogProb[o] log π(actions[o]|o) + dEntropy[o] H(o) + dValue[o] V(o)
// into the model's parameters.
func (t *tape[F]) backward(m *model[F], actions []int, dLogProb, dEntropy, dValue []F) {
	hd := m.cfg.Hidden
	G := t.plan.graphs
	L := len(t.logits)
	t.dLogits = nn.GrowZero(t.dLogits, L)
	for o, mask := range t.masks {
		lo, hi := t.logOff[o], t.logOff[o+1]
		dl := t.dLogits[lo:hi]
		dl[actions[o]] = dLogProb[o]
		nn.LogSoftmaxBackward(t.logp[lo:hi], dl, dl)
		nn.MaskedEntropyBackward(t.logp[lo:hi], mask, dEntropy[o], dl)
	}
	R := len(t.rowAct)
	t.dScores = nn.Grow(t.dScores, R)
	for r, a := range t.rowAct {
		t.dScores[r] = t.dLogits[a]
	}
	t.dPolIn = nn.Grow(t.dPolIn, R*2*hd)
	m.pol.Backward(&t.polC, t.dScores, t.dPolIn)
	// dTable holds d(graph embeddings) then d(No-Op embedding).
	t.dTable = nn.GrowZero(t.dTable, (G+1)*hd)
	for r := 0; r < R; r++ {
		row := t.dPolIn[r*2*hd : (r+1)*2*hd]
		add(t.dTable[int(t.rowCand[r])*hd:int(t.rowCand[r]+1)*hd], row[:hd])
		add(t.dTable[int(t.rowCur[r])*hd:int(t.rowCur[r]+1)*hd], row[hd:])
	}
	add(m.noop.Grad, t.dTable[G*hd:])
	B := len(t.masks)
	t.dValue = nn.Grow(t.dValue, B)
	copy(t.dValue, dValue)
	t.dValIn = nn.Grow(t.dValIn, B*hd)
	m.val.Backward(&t.valC, t.dValue, t.dValIn)
	nn.ScatterAddRows(t.dValIn, hd, t.cur, t.dTable)
	t.backEncode(m, t.dTable[:G*hd])
}

// backEncode accumulates encoder gradients given d(graph embeddings).
func (t *tape[F]) backEncode(m *model[F], dEmb []F) {
	p := &t.plan
	hd := m.cfg.Hidden
	G := p.graphs
	gw := hd + env.GlobalDim
	t.dGemb = nn.Grow(t.dGemb, G*hd)
	nn.LeakyReLUBackward(t.emb, dEmb, t.dGemb, actSlope)
	t.dGin = nn.Grow(t.dGin, G*gw)
	m.glob.Backward(t.gin, t.dGemb, G, t.dGin)
	L := len(p.levels)
	// dGin's pooled columns, spread over the last level's rows. The level
	// gradients alternate between two buffers.
	dh, dprev := nn.GrowZero(t.dhA, p.rows(L)*hd), t.dhB
	for g := 0; g < G; g++ {
		d := t.dGin[g*gw : g*gw+hd]
		for e := p.poolOff[g]; e < p.poolOff[g+1]; e++ {
			row := dh[int(p.poolIdx[e])*hd : int(p.poolIdx[e]+1)*hd]
			w := t.poolW[e]
			for k, v := range d {
				row[k] += w * v
			}
		}
	}
	for l := L - 1; l >= 0; l-- {
		dprev = nn.Grow(dprev, p.rows(l)*hd)
		m.gat[l].Backward(&p.levels[l], t.h[l], t.h[l+1], &t.gc[l], &t.gs, dh, dprev)
		dh, dprev = dprev, dh
	}
	nn.LeakyReLUBackward(t.h[0], dh, dh, actSlope)
	m.node.Backward(t.aggE, dh, p.rows(0), nil)
	nn.ScatterAddRows(dh, hd, p.class0, m.emb.Grad)
	t.dhA, t.dhB = dh, dprev
}

func add[F nn.Float](dst, src []F) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] += v
	}
}
