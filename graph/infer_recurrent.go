package graph

import "fmt"

// The recurrent operators RNN, GRU and LSTM stay opaque nodes: written
// back verbatim and never rewritten. The codec copies their attributes
// into Attrs, from which their output shapes are inferred here and the Go
// executor runs them.

// RecurrentGates maps each recurrent operator to the number of gates its
// weights stack (W is [directions, gates*hidden_size, input_size]).
var RecurrentGates = map[string]int{"RNN": 1, "GRU": 3, "LSTM": 4}

// RecurrentAttrs are the attributes of the recurrent operators that
// inference and the executor understand; a node with any other keeps no
// decoded attributes and stays fully opaque.
var RecurrentAttrs = map[string]AttrKind{
	"activation_alpha": AttrFloats, "activation_beta": AttrFloats, "activations": AttrStrings,
	"clip": AttrFloat, "direction": AttrString, "hidden_size": AttrInt, "input_forget": AttrInt,
	"layout": AttrInt, "linear_before_reset": AttrInt,
}

// IsRecurrent reports whether n is an opaque default-domain RNN, GRU or
// LSTM whose attributes were decoded.
func IsRecurrent(n *Node) bool {
	_, ok := n.Attrs["hidden_size"]
	return n.IsOpaque() && RecurrentGates[n.Op] > 0 && (n.Domain == "" || n.Domain == "ai.onnx") && ok
}

// RecurrentDims are the sizes of a recurrent node.
type RecurrentDims struct {
	Seq, Batch, Input, Hidden int
	// Dirs is 2 for a bidirectional node, else 1; Gates as
	// RecurrentGates.
	Dirs, Gates int
	// BatchFirst is layout 1: X is [batch, seq, input] and the states
	// [batch, directions, hidden].
	BatchFirst bool
}

// FLOPs returns the floating-point operations of the node's matrix
// products: every step and direction multiplies the input and the hidden
// state by their gate weights.
func (d RecurrentDims) FLOPs() int64 {
	return 2 * int64(d.Seq) * int64(d.Batch) * int64(d.Dirs) * int64(d.Gates*d.Hidden) * int64(d.Input+d.Hidden)
}

// RecurrentShape checks a recurrent node's inputs against its attributes
// and returns its sizes.
func RecurrentShape(n *Node) (RecurrentDims, error) {
	d := RecurrentDims{Gates: RecurrentGates[n.Op], Hidden: int(n.AttrInt("hidden_size")), Dirs: 1}
	switch dir := n.AttrString("direction"); dir {
	case "", "forward", "reverse":
	case "bidirectional":
		d.Dirs = 2
	default:
		return d, fmt.Errorf("direction %q is not forward, reverse or bidirectional", dir)
	}
	switch l := n.AttrInt("layout"); l {
	case 0:
	case 1:
		d.BatchFirst = true
	default:
		return d, fmt.Errorf("layout %d is not 0 or 1", l)
	}
	if d.Hidden < 1 {
		return d, fmt.Errorf("hidden_size %d is not positive", d.Hidden)
	}
	x := n.Input(0)
	if x == nil || len(n.Inputs) < 3 || n.Input(1) == nil || n.Input(2) == nil {
		return d, fmt.Errorf("%s needs X, W and R", n.Op)
	}
	if len(x.Shape) != 3 || !x.DType.IsFloat() {
		return d, fmt.Errorf("X must be a 3-D float tensor, is %v%v", x.DType, x.Shape)
	}
	s := x.Shape.Ints()
	d.Seq, d.Batch, d.Input = s[0], s[1], s[2]
	if d.BatchFirst {
		d.Seq, d.Batch = s[1], s[0]
	}
	gh := d.Gates * d.Hidden
	state := []int{d.Dirs, d.Batch, d.Hidden}
	if d.BatchFirst {
		state = []int{d.Batch, d.Dirs, d.Hidden}
	}
	want := []struct {
		name  string
		shape []int
		dt    DType
	}{
		{"W", []int{d.Dirs, gh, d.Input}, x.DType},
		{"R", []int{d.Dirs, gh, d.Hidden}, x.DType},
		{"B", []int{d.Dirs, 2 * gh}, x.DType},
		{"sequence_lens", []int{d.Batch}, Int32},
		{"initial_h", state, x.DType},
		{"initial_c", state, x.DType},
		{"P", []int{d.Dirs, 3 * d.Hidden}, x.DType},
	}
	for i, w := range want {
		v := n.Input(i + 1)
		if v == nil {
			continue
		}
		if (i == 5 || i == 6) && n.Op != "LSTM" {
			return d, fmt.Errorf("%s takes no input %d (%s)", n.Op, i+1, w.name)
		}
		if v.DType != w.dt || !sameDims(v.Shape, w.shape) {
			return d, fmt.Errorf("%s must be %v%v, is %v%v", w.name, w.dt, w.shape, v.DType, v.Shape)
		}
	}
	return d, nil
}

// inferRecurrent sets the types of a recurrent node's outputs: Y [seq,
// directions, batch, hidden] and Y_h (and LSTM's Y_c) [directions, batch,
// hidden], or with layout 1 [batch, seq, directions, hidden] and [batch,
// directions, hidden]. Sequence and batch keep X's symbolic expressions.
func inferRecurrent(n *Node) error {
	for i, in := range n.Inputs {
		if in == nil {
			continue
		}
		if in.Const != nil && !in.ShapeKnown {
			in.SetStatic(in.Const.DType, in.Const.Shape)
		}
		if !in.ShapeKnown || !in.Shape.Static() {
			return fmt.Errorf("%v: input %d %q has no static shape", n, i, in.Name)
		}
	}
	d, err := RecurrentShape(n)
	if err != nil {
		return fmt.Errorf("%v: %w", n, err)
	}
	if max := 2 + b2i(n.Op == "LSTM"); len(n.Outputs) > int(max) {
		return fmt.Errorf("%v: %d outputs, %s has at most %d", n, len(n.Outputs), n.Op, max)
	}
	x := n.Inputs[0]
	seq, batch := x.Shape[0], x.Shape[1]
	if d.BatchFirst {
		seq, batch = batch, seq
	}
	dirs, hidden := Dim{Value: int64(d.Dirs)}, Dim{Value: int64(d.Hidden)}
	y, state := Shape{seq, dirs, batch, hidden}, Shape{dirs, batch, hidden}
	if d.BatchFirst {
		y, state = Shape{batch, seq, dirs, hidden}, Shape{batch, dirs, hidden}
	}
	for i, o := range n.Outputs {
		if o == nil {
			continue
		}
		if i == 0 {
			o.setType(x.DType, y)
		} else {
			o.setType(x.DType, state)
		}
	}
	return nil
}
