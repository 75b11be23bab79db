package models

import (
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// Layer helpers shared by the builders. Each emits ONNX operators through
// the net's Builder and creates its own weights.

// op adds one node.
func (n *net) op(op string, attrs graph.Attrs, ins ...*graph.Value) *graph.Value {
	return n.b.Op(op, ins, attrs)
}

// ---- dense layers ----

// linear applies x[..., in] · W[in, out] (+ b) as MatMul (+ Add). W has
// variance gain/in (gain 1: Xavier/LeCun; 2: He, before a ReLU).
func (n *net) linear(name string, x *graph.Value, out int, gain float64, bias bool) *graph.Value {
	defer n.enter("%s", name)()
	d := n.dims(x)
	in := d[len(d)-1]
	y := n.op("MatMul", nil, x, n.normal("W", 0, math.Sqrt(gain/float64(in)), in, out))
	if bias {
		y = n.op("Add", nil, y, n.normal("B", 0, 0.02, out))
	}
	return n.track(y, gain*n.msq(x))
}

// dense is a classifier head on x[N, in]: Gemm(x, W[out, in], b, transB=1)
// with W ~ N(0, 0.01^2) as in torchvision's classifier initialisation.
func (n *net) dense(name string, x *graph.Value, out int) *graph.Value {
	defer n.enter("%s", name)()
	d := n.dims(x)
	y := n.op("Gemm", graph.Attrs{"transB": graph.IntAttr(1)},
		x, n.normal("W", 0, 0.01, out, d[1]), n.normal("B", 0, 0.01, out))
	return n.track(y, 1e-4*float64(d[1])*n.msq(x))
}

// ---- convolution ----

// convSpec describes a 2-D convolution.
type convSpec struct {
	out, kh, kw, stride, group int
	pad                        [4]int // top, left, bottom, right
	same                       bool   // TF "SAME": pads from the input size, extra at the end
	bias                       bool
	gain                       float64 // weight variance gain/fan_in; 0 = 2 (He)
}

// sq is a square k x k convolution with symmetric padding pad.
func sq(out, k, stride, pad int) convSpec {
	return convSpec{out: out, kh: k, kw: k, stride: stride, group: 1, pad: [4]int{pad, pad, pad, pad}}
}

// rect is a stride-1 kh x kw convolution with padding (ph, pw).
func rect(out, kh, kw, ph, pw int) convSpec {
	return convSpec{out: out, kh: kh, kw: kw, stride: 1, group: 1, pad: [4]int{ph, pw, ph, pw}}
}

// sameConv is a k x k convolution with TF "SAME" padding.
func sameConv(out, k, stride int) convSpec {
	return convSpec{out: out, kh: k, kw: k, stride: stride, group: 1, same: true}
}

func (c convSpec) groups(g int) convSpec { c.group = g; return c }
func (c convSpec) withBias() convSpec    { c.bias = true; return c }

// linearInit marks a convolution not followed by a ReLU (variance 1/fan_in).
func (c convSpec) linearInit() convSpec { c.gain = 1; return c }

// samePads returns TF "SAME" padding for one spatial axis.
func samePads(size, k, stride int) (lo, hi int) {
	out := (size + stride - 1) / stride
	total := max((out-1)*stride+k-size, 0)
	return total / 2, total - total/2
}

// conv adds a Conv node with a weight [out, in/group, kh, kw].
func (n *net) conv(name string, x *graph.Value, c convSpec) *graph.Value {
	defer n.enter("%s", name)()
	d := n.dims(x)
	group := max(c.group, 1)
	gain := c.gain
	if gain == 0 {
		gain = 2
	}
	pad := c.pad
	if c.same {
		pad[0], pad[2] = samePads(d[2], c.kh, c.stride)
		pad[1], pad[3] = samePads(d[3], c.kw, c.stride)
	}
	fanIn := d[1] / group * c.kh * c.kw
	ins := []*graph.Value{x, n.normal("W", 0, math.Sqrt(gain/float64(fanIn)), c.out, d[1]/group, c.kh, c.kw)}
	if c.bias {
		ins = append(ins, n.normal("B", 0, 0.01, c.out))
	}
	attrs := graph.Attrs{
		"kernel_shape": graph.IntsAttr(int64(c.kh), int64(c.kw)),
		"strides":      graph.IntsAttr(int64(c.stride), int64(c.stride)),
		"pads":         graph.IntsAttr(int64(pad[0]), int64(pad[1]), int64(pad[2]), int64(pad[3])),
	}
	if group != 1 {
		attrs["group"] = graph.IntAttr(int64(group))
	}
	return n.track(n.b.Op("Conv", ins, attrs), gain*n.msq(x))
}

// bn adds an inference-mode BatchNormalization. Scale and bias are near
// 1 and 0; the running variance is drawn around the estimated mean square
// of x, so the output is roughly standardised as after training.
func (n *net) bn(name string, x *graph.Value, eps float32) *graph.Value {
	defer n.enter("%s", name)()
	c := n.dims(x)[1]
	m := n.msq(x)
	y := n.op("BatchNormalization", graph.Attrs{"epsilon": graph.FloatAttr(eps)}, x,
		n.uniform("scale", 0.8, 1.2, c),
		n.normal("bias", 0, 0.05, c),
		n.normal("mean", 0, 0.05*math.Sqrt(m), c),
		n.uniform("var", 0.8*m, 1.25*m, c))
	return n.track(y, 1)
}

// convBN is a bias-free convolution followed by BatchNormalization.
func (n *net) convBN(name string, x *graph.Value, c convSpec, eps float32) *graph.Value {
	defer n.enter("%s", name)()
	return n.bn("bn", n.conv("conv", x, c), eps)
}

// convBNReLU is convBN followed by ReLU.
func (n *net) convBNReLU(name string, x *graph.Value, c convSpec, eps float32) *graph.Value {
	return n.relu(n.convBN(name, x, c, eps))
}

// ---- activations and arithmetic ----

func (n *net) relu(x *graph.Value) *graph.Value {
	return n.track(n.op("Relu", nil, x), n.msq(x)/2)
}

// relu6 is min(max(x, 0), 6) as Clip.
func (n *net) relu6(x *graph.Value) *graph.Value {
	return n.track(n.op("Clip", nil, x, n.scalar(0), n.scalar(6)), math.Min(n.msq(x)/2, 36))
}

func (n *net) sigmoid(x *graph.Value) *graph.Value {
	return n.track(n.op("Sigmoid", nil, x), 0.3)
}

func (n *net) tanh(x *graph.Value) *graph.Value {
	return n.track(n.op("Tanh", nil, x), math.Min(n.msq(x), 0.4))
}

// gelu is x * 0.5 * (1 + erf(x / sqrt 2)) in the five-node form PyTorch
// exports (Div, Erf, Add, Mul, Mul).
func (n *net) gelu(x *graph.Value) *graph.Value {
	e := n.op("Erf", nil, n.op("Div", nil, x, n.scalar(float32(math.Sqrt2))))
	y := n.op("Mul", nil, n.op("Mul", nil, x, n.op("Add", nil, e, n.scalar(1))), n.scalar(0.5))
	return n.track(y, n.msq(x)/2)
}

func (n *net) add(a, b *graph.Value) *graph.Value {
	return n.track(n.op("Add", nil, a, b), n.msq(a)+n.msq(b))
}

func (n *net) mul(a, b *graph.Value) *graph.Value {
	return n.track(n.op("Mul", nil, a, b), n.msq(a)*n.msq(b))
}

// ---- shape operators ----

// reshape reshapes x to the given static shape.
func (n *net) reshape(x *graph.Value, shape ...int) *graph.Value {
	return n.track(n.op("Reshape", nil, x, n.int64s(shape...)), n.msq(x))
}

// transpose permutes the axes of x.
func (n *net) transpose(x *graph.Value, perm ...int64) *graph.Value {
	return n.track(n.op("Transpose", graph.Attrs{"perm": graph.IntsAttr(perm...)}, x), n.msq(x))
}

// concat joins xs along axis; the mean square is the size-weighted mean.
func (n *net) concat(axis int, xs ...*graph.Value) *graph.Value {
	sum, tot := 0.0, 0
	for _, x := range xs {
		d := n.dims(x)
		k := d[(axis+len(d))%len(d)]
		sum += float64(k) * n.msq(x)
		tot += k
	}
	y := n.op("Concat", graph.Attrs{"axis": graph.IntAttr(int64(axis))}, xs...)
	return n.track(y, sum/float64(max(tot, 1)))
}

// flatten reshapes [N, C, 1, 1] (or any [N, ...]) to [N, C*...].
func (n *net) flatten(x *graph.Value) *graph.Value {
	return n.track(n.op("Flatten", graph.Attrs{"axis": graph.IntAttr(1)}, x), n.msq(x))
}

// ---- pooling ----

func poolAttrs(k, stride int, pad [4]int) graph.Attrs {
	return graph.Attrs{
		"kernel_shape": graph.IntsAttr(int64(k), int64(k)),
		"strides":      graph.IntsAttr(int64(stride), int64(stride)),
		"pads":         graph.IntsAttr(int64(pad[0]), int64(pad[1]), int64(pad[2]), int64(pad[3])),
	}
}

// maxPool is a k x k max pool with symmetric padding pad.
func (n *net) maxPool(x *graph.Value, k, stride, pad int, ceil bool) *graph.Value {
	a := poolAttrs(k, stride, [4]int{pad, pad, pad, pad})
	if ceil {
		a["ceil_mode"] = graph.IntAttr(1)
	}
	return n.track(n.op("MaxPool", a, x), 1.5*n.msq(x))
}

// maxPoolSame is a k x k max pool with TF "SAME" padding.
func (n *net) maxPoolSame(x *graph.Value, k, stride int) *graph.Value {
	return n.track(n.op("MaxPool", poolAttrs(k, stride, samePad4(n.dims(x), k, stride)), x), 1.5*n.msq(x))
}

// avgPool is a k x k average pool with symmetric padding pad; includePad
// selects count_include_pad (PyTorch's default) over TF's exclusion.
func (n *net) avgPool(x *graph.Value, k, stride, pad int, includePad bool) *graph.Value {
	a := poolAttrs(k, stride, [4]int{pad, pad, pad, pad})
	if includePad {
		a["count_include_pad"] = graph.IntAttr(1)
	}
	return n.track(n.op("AveragePool", a, x), n.msq(x))
}

// avgPoolSame is a k x k average pool with TF "SAME" padding (padding not
// counted).
func (n *net) avgPoolSame(x *graph.Value, k, stride int) *graph.Value {
	return n.track(n.op("AveragePool", poolAttrs(k, stride, samePad4(n.dims(x), k, stride)), x), n.msq(x))
}

func samePad4(d []int, k, stride int) [4]int {
	t, b := samePads(d[2], k, stride)
	l, r := samePads(d[3], k, stride)
	return [4]int{t, l, b, r}
}

// globalPool averages the spatial axes and flattens to [N, C].
func (n *net) globalPool(x *graph.Value) *graph.Value {
	return n.flatten(n.track(n.op("GlobalAveragePool", nil, x), n.msq(x)))
}

// ---- transformer blocks ----

// layerNorm normalises the last axis; scale and bias are near 1 and 0.
func (n *net) layerNorm(name string, x *graph.Value, eps float32) *graph.Value {
	defer n.enter("%s", name)()
	d := n.dims(x)
	h := d[len(d)-1]
	y := n.op("LayerNormalization", graph.Attrs{"axis": graph.IntAttr(-1), "epsilon": graph.FloatAttr(eps)},
		x, n.uniform("scale", 0.9, 1.1, h), n.normal("bias", 0, 0.02, h))
	return n.track(y, 1)
}

// selfAttention is multi-head scaled dot-product self-attention on
// x [B, S, H] (Vaswani et al. 2017): Q, K, V projections (MatMul + Add),
// reshape to [B, S, heads, H/heads], transpose to [B, heads, S, d] (K to
// [B, heads, d, S]), scores Q·K / sqrt(d) plus the optional additive mask
// [1, 1, S, S], Softmax over keys, context = weights · V, transpose and
// reshape back to [B, S, H], and the output projection.
func (n *net) selfAttention(name string, x *graph.Value, heads int, mask *graph.Value) *graph.Value {
	defer n.enter("%s", name)()
	d := n.dims(x)
	b, s, h := d[0], d[1], d[2]
	dh := h / heads
	split := func(name string, perm ...int64) *graph.Value {
		return n.transpose(n.reshape(n.linear(name, x, h, 1, true), b, s, heads, dh), perm...)
	}
	q := split("query", 0, 2, 1, 3)
	k := split("key", 0, 2, 3, 1)
	v := split("value", 0, 2, 1, 3)
	scores := n.op("Div", nil, n.op("MatMul", nil, q, k), n.scalar(float32(math.Sqrt(float64(dh)))))
	if mask != nil {
		scores = n.op("Add", nil, scores, mask)
	}
	probs := n.op("Softmax", graph.Attrs{"axis": graph.IntAttr(-1)}, scores)
	ctx := n.track(n.op("MatMul", nil, probs, v), n.msq(x))
	ctx = n.reshape(n.transpose(ctx, 0, 2, 1, 3), b, s, h)
	return n.linear("output", ctx, h, 1, true)
}

// mlp is the position-wise feed-forward block: linear to width, the
// activation ("gelu" or "relu"), linear back.
func (n *net) mlp(name string, x *graph.Value, width int, act string) *graph.Value {
	defer n.enter("%s", name)()
	d := n.dims(x)
	var y *graph.Value
	if act == "relu" {
		y = n.relu(n.linear("fc1", x, width, 2, true))
	} else {
		y = n.gelu(n.linear("fc1", x, width, 2, true))
	}
	return n.linear("fc2", y, d[len(d)-1], 1, true)
}

// postLNLayer is a post-norm encoder layer (BERT):
// x = LN(x + Attn(x)); x = LN(x + MLP(x)).
func (n *net) postLNLayer(x *graph.Value, heads, width int, act string, eps float32) *graph.Value {
	x = n.layerNorm("ln1", n.add(x, n.selfAttention("attention", x, heads, nil)), eps)
	return n.layerNorm("ln2", n.add(x, n.mlp("mlp", x, width, act)), eps)
}

// preLNLayer is a pre-norm layer (ViT, GPT-style decoders, Transformer-
// Transducer): x = x + Attn(LN(x)); x = x + MLP(LN(x)).
func (n *net) preLNLayer(x *graph.Value, heads, width int, act string, eps float32, mask *graph.Value) *graph.Value {
	x = n.add(x, n.selfAttention("attention", n.layerNorm("ln1", x, eps), heads, mask))
	return n.add(x, n.mlp("mlp", n.layerNorm("ln2", x, eps), width, act))
}

// preLNStack applies layers pre-norm layers (scopes layer0, layer1, ...)
// and a final LayerNorm "ln".
func (n *net) preLNStack(x *graph.Value, layers, heads, width int, act string, eps float32, mask *graph.Value) *graph.Value {
	for i := range layers {
		leave := n.enter("layer%d", i)
		x = n.preLNLayer(x, heads, width, act, eps, mask)
		leave()
	}
	return n.layerNorm("ln", x, eps)
}

// causalMask is an additive [1, 1, s, s] mask: 0 where key <= query,
// -10000 above the diagonal.
func (n *net) causalMask(s int) *graph.Value {
	return n.tensor("causal_mask", func(i int) float64 {
		if i%s > i/s {
			return -1e4
		}
		return 0
	}, 1, 1, s, s)
}
