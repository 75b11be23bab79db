package graph

import (
	"fmt"
	"math/bits"
)

// MaxElements bounds the element count of any one tensor: 2^48, far above
// any machine's memory, and small enough that byte sizes (at most 16
// bytes an element) never overflow an int64.
const MaxElements = 1 << 48

// ElementCount returns the number of elements of a static shape, or an
// error when it exceeds MaxElements (including products that overflow an
// int64).
func ElementCount(s Shape) (int64, error) {
	n := uint64(1)
	for _, d := range s {
		if d.Value < 0 {
			return 0, fmt.Errorf("shape %v is not static", s)
		}
		hi, lo := bits.Mul64(n, uint64(d.Value))
		if hi != 0 || lo > MaxElements {
			if hasZero(s) {
				return 0, nil
			}
			return 0, fmt.Errorf("shape %v has more than 2^48 elements", s)
		}
		n = lo
	}
	return int64(n), nil
}

func hasZero(s Shape) bool {
	for _, d := range s {
		if d.Value == 0 {
			return true
		}
	}
	return false
}

// ByteSize returns the bytes a value of static shape s and type dt holds.
func ByteSize(dt DType, s Shape) (int64, error) {
	n, err := ElementCount(s)
	if err != nil {
		return 0, err
	}
	return n * int64(max(dt.Size(), 1)), nil
}

// checkOutputSizes reports a static output of n whose element count
// exceeds MaxElements.
func checkOutputSizes(n *Node) error {
	for _, o := range n.Outputs {
		if o == nil || !o.ShapeKnown || !o.Shape.Static() {
			continue
		}
		if _, err := ElementCount(o.Shape); err != nil {
			return fmt.Errorf("%v: output %q: %w", n, o.Name, err)
		}
	}
	return nil
}

// CheckMemory reports the first value of g (graph inputs, then node
// outputs in order) whose static shape needs more than limit bytes,
// naming the input or the node, or whose element count exceeds
// MaxElements. avail describes the limit in the message (e.g. "the 31.2
// GiB of memory available"). Run it after BindShapes, before allocating
// tensors for the graph.
func (g *Graph) CheckMemory(limit int64, avail string) error {
	// where names v in a message; it is formatted only for a failure.
	check := func(v *Value, where func() string) error {
		if v == nil || v.Const != nil || !v.ShapeKnown || !v.Shape.Static() {
			return nil
		}
		b, err := ByteSize(v.DType, v.Shape)
		if err != nil {
			return fmt.Errorf("%s: %w", where(), err)
		}
		if b > limit {
			return fmt.Errorf("%s: %v %v needs %s, more than %s", where(), v.DType, v.Shape, FormatBytes(b), avail)
		}
		return nil
	}
	for _, in := range g.Inputs {
		if err := check(in, func() string { return fmt.Sprintf("input %q", in.Name) }); err != nil {
			return err
		}
	}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			if err := check(o, func() string { return fmt.Sprintf("%v: output %q", n, o.Name) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// FormatBytes renders a byte count with a binary unit ("1.5 GiB").
func FormatBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", b)
}
