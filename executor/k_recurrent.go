package executor

import (
	"fmt"
	"math"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// recurrentKernel runs the recurrent operators RNN, GRU and LSTM (opaque
// nodes with decoded attributes, graph.IsRecurrent), accumulating in
// float64: for each direction and batch row, step by step, the gates from
// the input and the previous hidden state, then the new state. Steps past
// a row's sequence length leave zeros in Y and the state as it was (an
// empty sequence, zero states).
type recurrentKernel struct {
	op string
	d  graph.RecurrentDims
	// acts holds each direction's activations: f (RNN); f, g (GRU); f,
	// g, h (LSTM).
	acts [][]activation
	// reverse is set for direction "reverse" (a bidirectional node runs
	// its second direction reversed).
	reverse bool
	clip    float64 // 0: none
	// linearBeforeReset (GRU) applies the reset gate after the hidden
	// state's product; inputForget (LSTM) couples the forget gate to the
	// input gate (f = 1 - i).
	linearBeforeReset, inputForget bool
}

// activation is one of the functions ONNX's recurrent operators take.
type activation func(float64) float64

// defaultActivations are each operator's activations per direction.
var defaultActivations = map[string][]string{
	"RNN": {"Tanh"}, "GRU": {"Sigmoid", "Tanh"}, "LSTM": {"Sigmoid", "Tanh", "Tanh"},
}

func newRecurrentKernel(ni *nodeInfo) (kernel, error) {
	n := ni.node
	d, err := graph.RecurrentShape(n)
	if err != nil {
		return nil, err
	}
	if !isFloatDT(ni.in(0).dt) {
		return nil, errDType(n.Op, ni.in(0).dt)
	}
	k := &recurrentKernel{op: n.Op, d: d, reverse: n.AttrString("direction") == "reverse",
		clip: float64(n.AttrFloat("clip")), linearBeforeReset: n.AttrInt("linear_before_reset") != 0,
		inputForget: n.AttrInt("input_forget") != 0}
	names := n.Attrs["activations"].Strings
	per := len(defaultActivations[n.Op])
	if len(names) == 0 {
		for range d.Dirs {
			names = append(names, defaultActivations[n.Op]...)
		}
	}
	if len(names) != per*d.Dirs {
		return nil, fmt.Errorf("%d activations, want %d (%d per direction)", len(names), per*d.Dirs, per)
	}
	alphas, betas := n.AttrFloats("activation_alpha"), n.AttrFloats("activation_beta")
	for dir := range d.Dirs {
		var acts []activation
		for _, name := range names[dir*per : (dir+1)*per] {
			f, err := newActivation(name, &alphas, &betas)
			if err != nil {
				return nil, err
			}
			acts = append(acts, f)
		}
		k.acts = append(k.acts, acts)
	}
	return k, nil
}

// newActivation returns the named activation, taking its alpha and beta
// (when it has them) from the front of alphas and betas, or ONNX's
// defaults when they are used up.
func newActivation(name string, alphas, betas *[]float32) (activation, error) {
	take := func(list *[]float32, def float64) float64 {
		if len(*list) == 0 {
			return def
		}
		v := float64((*list)[0])
		*list = (*list)[1:]
		return v
	}
	switch strings.ToLower(name) {
	case "sigmoid":
		return func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, nil
	case "tanh":
		return math.Tanh, nil
	case "relu":
		return func(x float64) float64 { return math.Max(x, 0) }, nil
	case "softsign":
		return func(x float64) float64 { return x / (1 + math.Abs(x)) }, nil
	case "softplus":
		return func(x float64) float64 { return math.Log1p(math.Exp(x)) }, nil
	case "affine":
		a, b := take(alphas, 1), take(betas, 0)
		return func(x float64) float64 { return a*x + b }, nil
	case "leakyrelu":
		a := take(alphas, 0.01)
		return func(x float64) float64 { return math.Max(x, 0) + a*math.Min(x, 0) }, nil
	case "thresholdedrelu":
		a := take(alphas, 1)
		return func(x float64) float64 { return x * b2f(x > a) }, nil
	case "scaledtanh":
		a, b := take(alphas, 1), take(betas, 1)
		return func(x float64) float64 { return a * math.Tanh(b*x) }, nil
	case "hardsigmoid":
		a, b := take(alphas, 0.2), take(betas, 0.5)
		return func(x float64) float64 { return math.Max(0, math.Min(1, a*x+b)) }, nil
	case "elu":
		a := take(alphas, 1)
		return func(x float64) float64 {
			if x >= 0 {
				return x
			}
			return a * math.Expm1(x)
		}, nil
	}
	return nil, fmt.Errorf("activation %q is not supported", name)
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (k *recurrentKernel) run(rc *runCtx, ins, outs []any) error {
	return floatIO(rc, k, ins, outs, recurrentRun[float32], recurrentRun[float64])
}

// recurrentIO holds one run's operands as float64 and its outputs.
type recurrentIO[T floatT] struct {
	x, w, r, b, h0, c0, p []float64
	lens                  []int32
	y, yh, yc             []T
}

func recurrentRun[T floatT](rc *runCtx, k *recurrentKernel, ins, outs []any) error {
	io := recurrentIO[T]{x: float64s[T](ins[0]), w: float64s[T](ins[1]), r: float64s[T](ins[2]),
		b: float64s[T](optIn(ins, 3)), h0: float64s[T](optIn(ins, 5)), c0: float64s[T](optIn(ins, 6)), p: float64s[T](optIn(ins, 7))}
	io.lens, _ = optIn(ins, 4).([]int32)
	io.y, _ = optIn(outs, 0).([]T)
	io.yh, _ = optIn(outs, 1).([]T)
	io.yc, _ = optIn(outs, 2).([]T)
	d := k.d
	for _, l := range io.lens {
		if l < 0 || int(l) > d.Seq {
			return fmt.Errorf("%s: sequence length %d outside [0, %d]", k.op, l, d.Seq)
		}
	}
	if io.y != nil {
		clear(io.y)
	}
	parallelFor(rc.threads, d.Dirs*d.Batch, d.Seq*d.Gates*d.Hidden*(d.Input+d.Hidden), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			runRow(k, &io, i/d.Batch, i%d.Batch)
		}
	})
	return nil
}

// float64s returns the float data x (of element type T) as float64s, or
// nil for an absent input.
func float64s[T floatT](x any) []float64 {
	v, ok := x.([]T)
	if !ok {
		return nil
	}
	out := make([]float64, len(v))
	for i, e := range v {
		out[i] = float64(e)
	}
	return out
}

// runRow runs direction dir of batch row b over its sequence.
func runRow[T floatT](k *recurrentKernel, io *recurrentIO[T], dir, b int) {
	d := k.d
	H, gh := d.Hidden, d.Gates*d.Hidden
	w := io.w[dir*gh*d.Input : (dir+1)*gh*d.Input]
	r := io.r[dir*gh*H : (dir+1)*gh*H]
	var wb, rb, p []float64
	if io.b != nil {
		wb, rb = io.b[dir*2*gh:dir*2*gh+gh], io.b[dir*2*gh+gh:(dir+1)*2*gh]
	}
	if io.p != nil {
		p = io.p[dir*3*H : (dir+1)*3*H]
	}
	st := k.stateAt(dir, b)
	h, c := make([]float64, H), make([]float64, H)
	if io.h0 != nil {
		copy(h, io.h0[st:st+H])
	}
	if io.c0 != nil {
		copy(c, io.c0[st:st+H])
	}
	steps := d.Seq
	if io.lens != nil {
		steps = int(io.lens[b])
	}
	if steps == 0 {
		// An empty sequence leaves zero states, as ONNX Runtime does.
		clear(h)
		clear(c)
	}
	xg, hg := make([]float64, gh), make([]float64, gh)
	for s := range steps {
		t := s
		if k.reverse || dir == 1 {
			t = steps - 1 - s
		}
		xt := io.x[k.inputAt(t, b) : k.inputAt(t, b)+d.Input]
		affine(xg, w, xt, wb)
		if k.op == "GRU" && !k.linearBeforeReset {
			// The hidden gate's product needs r (.) h: the z and r rows
			// first, the h rows once r is known.
			affine(hg[:2*H], r[:2*H*H], h, head(rb, 2*H))
		} else {
			affine(hg, r, h, rb)
		}
		switch k.op {
		case "RNN":
			for j := range H {
				h[j] = k.act(dir, 0, xg[j]+hg[j])
			}
		case "GRU":
			k.gru(dir, h, xg, hg, r, rb)
		case "LSTM":
			k.lstm(dir, h, c, xg, hg, p)
		}
		if io.y != nil {
			at := k.outputAt(t, dir, b)
			for j, v := range h {
				io.y[at+j] = T(v)
			}
		}
	}
	if io.yh != nil {
		for j, v := range h {
			io.yh[st+j] = T(v)
		}
	}
	if io.yc != nil {
		for j, v := range c {
			io.yc[st+j] = T(v)
		}
	}
}

// act applies direction dir's activation i to x, clipped first.
func (k *recurrentKernel) act(dir, i int, x float64) float64 {
	if k.clip > 0 {
		x = math.Max(-k.clip, math.Min(k.clip, x))
	}
	return k.acts[dir][i](x)
}

// gru updates h in place from the input's gate rows xg and the hidden
// state's hg (z, r and, with linear_before_reset, h rows; without it the
// h rows are computed here from r (.) h).
func (k *recurrentKernel) gru(dir int, h, xg, hg, r, rb []float64) {
	H := k.d.Hidden
	z, rs := make([]float64, H), make([]float64, H)
	for j := range H {
		z[j] = k.act(dir, 0, xg[j]+hg[j])
		rs[j] = k.act(dir, 0, xg[H+j]+hg[H+j])
	}
	cand := make([]float64, H)
	if k.linearBeforeReset {
		for j := range H {
			cand[j] = k.act(dir, 1, xg[2*H+j]+rs[j]*hg[2*H+j])
		}
	} else {
		reset := make([]float64, H)
		for j := range H {
			reset[j] = rs[j] * h[j]
		}
		affine(hg[2*H:], r[2*H*H:], reset, tail(rb, 2*H))
		for j := range H {
			cand[j] = k.act(dir, 1, xg[2*H+j]+hg[2*H+j])
		}
	}
	for j := range H {
		h[j] = (1-z[j])*cand[j] + z[j]*h[j]
	}
}

// lstm updates h and c in place from the gate rows (i, o, f, c) and the
// peepholes p (i, o, f; nil when absent).
func (k *recurrentKernel) lstm(dir int, h, c, xg, hg, p []float64) {
	H := k.d.Hidden
	peep := func(g, j int, cell float64) float64 {
		if p == nil {
			return 0
		}
		return p[g*H+j] * cell
	}
	for j := range H {
		i := k.act(dir, 0, xg[j]+hg[j]+peep(0, j, c[j]))
		f := k.act(dir, 0, xg[2*H+j]+hg[2*H+j]+peep(2, j, c[j]))
		if k.inputForget {
			f = 1 - i
		}
		cand := k.act(dir, 1, xg[3*H+j]+hg[3*H+j])
		c[j] = f*c[j] + i*cand
		o := k.act(dir, 0, xg[H+j]+hg[H+j]+peep(1, j, c[j]))
		h[j] = o * k.acts[dir][2](c[j])
	}
}

// affine sets out[g] = bias[g] + sum_k m[g, k] v[k] for the rows of m
// (len(out) rows of len(v)); bias may be nil.
func affine(out, m, v, bias []float64) {
	for g := range out {
		s := 0.0
		if bias != nil {
			s = bias[g]
		}
		row := m[g*len(v) : (g+1)*len(v)]
		for i, x := range v {
			s += row[i] * x
		}
		out[g] = s
	}
}

// head and tail return b[:n] and b[n:], or nil for a nil b.
func head(b []float64, n int) []float64 {
	if b == nil {
		return nil
	}
	return b[:n]
}

func tail(b []float64, n int) []float64 {
	if b == nil {
		return nil
	}
	return b[n:]
}

// inputAt is the offset of X[t, b, :] (layout 0) or X[b, t, :].
func (k *recurrentKernel) inputAt(t, b int) int {
	d := k.d
	if d.BatchFirst {
		return (b*d.Seq + t) * d.Input
	}
	return (t*d.Batch + b) * d.Input
}

// outputAt is the offset of Y[t, dir, b, :] (layout 0) or Y[b, t, dir, :].
func (k *recurrentKernel) outputAt(t, dir, b int) int {
	d := k.d
	if d.BatchFirst {
		return ((b*d.Seq+t)*d.Dirs + dir) * d.Hidden
	}
	return ((t*d.Dirs+dir)*d.Batch + b) * d.Hidden
}

// stateAt is the offset of a state's [dir, b, :] (layout 0) or [b, dir, :].
func (k *recurrentKernel) stateAt(dir, b int) int {
	d := k.d
	if d.BatchFirst {
		return (b*d.Dirs + dir) * d.Hidden
	}
	return (dir*d.Batch + b) * d.Hidden
}
