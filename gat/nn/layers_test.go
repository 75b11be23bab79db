package nn

import (
	"math"
	"testing"

	"github.com/xrl-dev/xrl/internal/fdcheck"
)

func TestLinearGrad(t *testing.T) {
	for _, tc := range []struct{ rows, in, out int }{{1, 3, 2}, {5, 4, 7}, {300, 6, 5}} {
		rng := newRNG(1)
		l := NewLinear[float64]("l", tc.in, tc.out, 1, rng)
		Normal(l.B, 1, rng)
		x := randVec(rng, tc.rows*tc.in)
		r := randVec(rng, tc.rows*tc.out)
		y := make([]float64, tc.rows*tc.out)
		loss := func() float64 { l.Forward(x, tc.rows, y); return project(r, y) }
		loss()
		dx := make([]float64, len(x))
		l.Backward(x, r, tc.rows, dx)
		fdcheck.Grad(t, "linear.w", l.W.Value, l.W.Grad, loss)
		fdcheck.Grad(t, "linear.b", l.B.Value, l.B.Grad, loss)
		fdcheck.Grad(t, "linear.x", x, dx, loss)
	}
}

func TestActivationGrads(t *testing.T) {
	rng := newRNG(2)
	x := randVec(rng, 50)
	r := randVec(rng, 50)
	y := make([]float64, 50)
	dx := make([]float64, 50)
	for _, tc := range []struct {
		name string
		fwd  func()
		bwd  func()
	}{
		{"relu", func() { LeakyReLU(x, y, 0) }, func() { LeakyReLUBackward(x, r, dx, 0) }},
		{"leakyrelu", func() { LeakyReLU(x, y, 0.2) }, func() { LeakyReLUBackward(x, r, dx, 0.2) }},
		{"tanh", func() { Tanh(x, y) }, func() { TanhBackward(y, r, dx) }},
	} {
		loss := func() float64 { tc.fwd(); return project(r, y) }
		loss()
		tc.bwd()
		fdcheck.Grad(t, tc.name, x, dx, loss)
	}
}

func TestIndexGrads(t *testing.T) {
	rng := newRNG(3)
	const cols = 3
	src := randVec(rng, 6*cols)
	idx := []int32{4, 0, 4, 5, 2, 2, 2, 1}
	// Gather: backward is a scatter-add.
	r := randVec(rng, len(idx)*cols)
	dst := make([]float64, len(idx)*cols)
	loss := func() float64 { GatherRows(src, cols, idx, dst); return project(r, dst) }
	dsrc := make([]float64, len(src))
	ScatterAddRows(r, cols, idx, dsrc)
	fdcheck.Grad(t, "gather", src, dsrc, loss)

	// Scatter-add (segment sum by id): backward is a gather.
	x := randVec(rng, len(idx)*cols)
	out := make([]float64, 6*cols)
	r2 := randVec(rng, len(out))
	loss2 := func() float64 { clear(out); ScatterAddRows(x, cols, idx, out); return project(r2, out) }
	dxs := make([]float64, len(x))
	GatherRows(r2, cols, idx, dxs)
	fdcheck.Grad(t, "scatter", x, dxs, loss2)

	// Weighted CSR segment sum (per-graph pooling), with an empty segment.
	off := []int32{0, 3, 3, 8}
	w := randVec(rng, len(idx))
	seg := make([]float64, 3*cols)
	r3 := randVec(rng, len(seg))
	loss3 := func() float64 { SegmentSum(src, cols, off, idx, w, seg); return project(r3, seg) }
	dsrc3 := make([]float64, len(src))
	SegmentSumBackward(r3, cols, off, idx, w, dsrc3)
	fdcheck.Grad(t, "segmentsum", src, dsrc3, loss3)

	// Concat.
	a, b := randVec(rng, 4*2), randVec(rng, 4*3)
	cat := make([]float64, 4*5)
	r4 := randVec(rng, len(cat))
	loss4 := func() float64 { ConcatCols(a, 2, b, 3, 4, cat); return project(r4, cat) }
	da, db := make([]float64, len(a)), make([]float64, len(b))
	SplitCols(r4, 2, 3, 4, da, db)
	fdcheck.Grad(t, "concat.a", a, da, loss4)
	fdcheck.Grad(t, "concat.b", b, db, loss4)
}

func TestSegmentSoftmaxGrad(t *testing.T) {
	rng := newRNG(4)
	const cols = 2
	off := []int32{0, 1, 4, 4, 9}
	x := randVec(rng, 9*cols)
	y := make([]float64, len(x))
	r := randVec(rng, len(x))
	loss := func() float64 { SegmentSoftmax(x, cols, off, y); return project(r, y) }
	loss()
	// Each segment's softmax sums to one per column.
	for s := 0; s+1 < len(off); s++ {
		for c := 0; c < cols; c++ {
			var sum float64
			for e := off[s]; e < off[s+1]; e++ {
				sum += y[int(e)*cols+c]
			}
			if off[s] < off[s+1] && math.Abs(sum-1) > 1e-12 {
				t.Errorf("segment %d column %d sums to %v", s, c, sum)
			}
		}
	}
	dx := make([]float64, len(x))
	SegmentSoftmaxBackward(y, r, cols, off, dx)
	fdcheck.Grad(t, "segmentsoftmax", x, dx, loss)
}

func TestLogSoftmaxEntropyGrad(t *testing.T) {
	for _, mask := range [][]bool{
		{true, true, true, true},
		{true, false, true, false, false, true},
		{false, false, true},
	} {
		rng := newRNG(5)
		z := randVec(rng, len(mask))
		logp := make([]float64, len(z))
		zm := make([]float64, len(z))
		r := randVec(rng, len(z))
		const wH = 0.7
		loss := func() float64 {
			copy(zm, z)
			MaskLogits(zm, mask)
			LogSoftmax(zm, logp)
			var s float64
			for i, ok := range mask {
				if ok {
					s += r[i] * logp[i]
				}
			}
			return s + wH*MaskedEntropy(logp, mask)
		}
		loss()
		for i, ok := range mask {
			if !ok && (zm[i] != MaskedLogit || math.Exp(logp[i]) != 0) {
				t.Errorf("masked entry %d: logit %v, p %v", i, zm[i], math.Exp(logp[i]))
			}
		}
		dl := make([]float64, len(z))
		for i, ok := range mask {
			if ok {
				dl[i] = r[i]
			}
		}
		dz := make([]float64, len(z))
		LogSoftmaxBackward(logp, dl, dz)
		MaskedEntropyBackward(logp, mask, wH, dz)
		for i, ok := range mask {
			if !ok {
				if dz[i] != 0 {
					t.Errorf("masked logit %d gets gradient %v", i, dz[i])
				}
				dz[i] = 0 // a masked logit is a constant: the loss does not depend on z[i]
			}
		}
		fdcheck.Grad(t, "logsoftmax+entropy", z, dz, loss)
	}
}

func TestMaskedEntropyValue(t *testing.T) {
	// Two valid actions with equal logits: entropy log 2, whatever the masked ones hold.
	z := []float64{3, 99, 3, -5}
	mask := []bool{true, false, true, false}
	MaskLogits(z, mask)
	logp := make([]float64, 4)
	LogSoftmax(z, logp)
	if h := MaskedEntropy(logp, mask); math.Abs(h-math.Ln2) > 1e-12 {
		t.Errorf("entropy %v, want log 2", h)
	}
}

func TestGATGrad(t *testing.T) {
	rng := newRNG(6)
	// 5 input rows, 4 output rows; output 3 has only its self-loop; two
	// output rows share the self row 1 (as deduplicated nodes do).
	g := &Graph{NIn: 5, NOut: 4,
		Self: []int32{0, 1, 1, 4},
		Off:  []int32{0, 3, 6, 8, 9},
		Src:  []int32{0, 2, 3, 1, 2, 2, 1, 4, 4},
	}
	for _, heads := range []int{1, 2, 4} {
		const d = 8
		l := NewGAT[float64]("g", d, heads, 1.4, rng)
		Normal(l.B, 0.5, rng)
		hin := randVec(rng, g.NIn*d)
		hout := make([]float64, g.NOut*d)
		r := randVec(rng, len(hout))
		var c GATCache[float64]
		var sc GATScratch[float64]
		loss := func() float64 { l.Forward(g, hin, &c, hout); return project(r, hout) }
		loss()
		dhin := make([]float64, len(hin))
		dhout := append([]float64(nil), r...) // Backward overwrites it
		l.Backward(g, hin, hout, &c, &sc, dhout, dhin)
		for _, p := range l.Params() {
			fdcheck.Grad(t, p.Name, p.Value, p.Grad, loss)
		}
		fdcheck.Grad(t, "gat.hin", hin, dhin, loss)
	}
}

func TestMLPGrad(t *testing.T) {
	rng := newRNG(7)
	m := NewMLP[float64]("mlp", 6, []int{8, 5}, 2, 1, rng)
	for _, p := range m.Params() {
		if len(p.Shape) == 1 {
			Normal(p, 0.3, rng)
		}
	}
	const rows = 4
	x := randVec(rng, rows*6)
	r := randVec(rng, rows*2)
	var c MLPCache[float64]
	loss := func() float64 { return project(r, m.Forward(x, rows, &c)) }
	loss()
	dx := make([]float64, len(x))
	m.Backward(&c, r, dx)
	for _, p := range m.Params() {
		fdcheck.Grad(t, p.Name, p.Value, p.Grad, loss)
	}
	fdcheck.Grad(t, "mlp.x", x, dx, loss)
}
