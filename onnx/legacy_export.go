package onnx

import (
	"github.com/xrl-dev/xrl/graph"
)

// raiseFunc builds the error saying that a node needs a higher opset.
type raiseFunc func(opset int64, format string, args ...any) error

// opExists checks that n's operator can be written at opset: from its
// schema's MinOpset on, or below opset 9 from the opset that introduced it
// when the codec converts its older versions (History.First).
func opExists(n *graph.Node, s *graph.OpSchema, opset int64, raise raiseFunc) error {
	if opset >= minIROpset || s.Domain != "" {
		if opset < s.MinOpset {
			return raise(s.MinOpset, "op %s exists in this form from opset %d", n.Op, s.MinOpset)
		}
		return nil
	}
	first := s.History.First
	if first == 0 {
		to := max(s.MinOpset, minIROpset)
		return raise(to, "op %s is written from opset %d", n.Op, to)
	}
	if opset < first {
		return raise(first, "op %s exists from opset %d", n.Op, first)
	}
	return nil
}

// legacyForm turns the attributes of n, already in opset-9 form, into the
// form of opset (below 9), the reverse of decoder.upgrade; h is the
// history of n's op. Where the old operator depends on input shapes
// (binary operators before opset 7, Max/Min before 8) they must be known.
func legacyForm(n *graph.Node, h graph.History, opset int64, attrs graph.Attrs, raise raiseFunc) error {
	op := n.Op
	if opset < h.ConsumedBefore && h.ConsumedRequired {
		attrs["consumed_inputs"] = graph.IntsAttr(make([]int64, len(n.Inputs))...)
	}
	if opset < h.TestModeBefore {
		attrs["is_test"] = graph.IntAttr(1)
	}
	switch {
	case op == "PRelu" && opset < preluBroadcastSince:
		if !sameOrSingle(n.Input(0), n.Input(1)) {
			return raise(preluBroadcastSince, "PRelu before opset %d needs a one-element slope or one of X's shape", preluBroadcastSince)
		}
	case h.LegacyBroadcast && opset < numpyBroadcastSince:
		a, b := n.Input(0), n.Input(1)
		switch {
		case a == nil || b == nil:
			return raise(numpyBroadcastSince, "%s before opset %d takes two inputs", op, numpyBroadcastSince)
		case sameKnownShape(a, b):
		case legacySuffix(a, b):
			attrs["broadcast"] = graph.IntAttr(1)
		default:
			return raise(numpyBroadcastSince, "inputs %q and %q are not known to have one shape, or a shape %s before opset %d broadcasts B to (a trailing part of A, or one element)",
				a.Name, b.Name, op, numpyBroadcastSince)
		}
	case opset < h.SameShapeBefore:
		for _, v := range n.Inputs {
			if !sameKnownShape(n.Inputs[0], v) {
				return raise(h.SameShapeBefore, "%s before opset %d needs inputs of one known shape", op, h.SameShapeBefore)
			}
		}
	case op == "Gemm" && opset < gemmBroadcastBefore:
		attrs["broadcast"] = graph.IntAttr(1)
	case op == "Cast":
		to := graph.DType(attrs["to"].Int)
		if to == graph.String || (n.Input(0) != nil && n.Input(0).DType == graph.String) {
			return raise(minIROpset, "Cast to or from strings exists from opset %d", minIROpset)
		}
		if opset < castIntSince {
			name, ok := castName(to)
			if !ok {
				return raise(castIntSince, "Cast to %v is written from opset %d", to, castIntSince)
			}
			attrs["to"] = graph.StringAttr(name)
		}
	case op == "Pad" && opset < padRenamedSince:
		attrs["paddings"] = attrs["pads"]
		delete(attrs, "pads")
	case op == "Split" && opset < splitInputUntil:
		if _, ok := attrs["axis"]; !ok {
			attrs["axis"] = graph.IntAttr(0) // Split-1's axis had no default
		}
	}
	return nil
}

// sameDim reports whether two dimensions are known to be equal.
func sameDim(x, y graph.Dim) bool {
	if x.Known() || y.Known() {
		return x.Value == y.Value
	}
	return x.Param != "" && x.Param == y.Param
}

// sameKnownShape reports whether a and b are known to have one shape.
func sameKnownShape(a, b *graph.Value) bool {
	if a == nil || b == nil || !a.ShapeKnown || !b.ShapeKnown || len(a.Shape) != len(b.Shape) {
		return false
	}
	for i := range a.Shape {
		if !sameDim(a.Shape[i], b.Shape[i]) {
			return false
		}
	}
	return true
}

// legacySuffix reports whether broadcast=1 without axis (opsets 1 to 6)
// computes numpy's result for a and b: b has a's trailing dimensions, or
// is one element of rank at most a's.
func legacySuffix(a, b *graph.Value) bool {
	if a == nil || b == nil || !a.ShapeKnown || !b.ShapeKnown || len(b.Shape) > len(a.Shape) {
		return false
	}
	one := true
	for _, d := range b.Shape {
		one = one && d.Known() && d.Value == 1
	}
	if one {
		return true
	}
	off := len(a.Shape) - len(b.Shape)
	for i, d := range b.Shape {
		if !sameDim(a.Shape[off+i], d) {
			return false
		}
	}
	return true
}
