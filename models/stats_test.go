package models

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// TestStatsSmallGraph checks Params and FLOPs on a graph small enough to
// count by hand.
func TestStatsSmallGraph(t *testing.T) {
	n := newNet("small", 1)
	x := n.input("x", 1, 3, 8, 8)
	y := n.conv("conv", x, sq(4, 3, 1, 1).withBias()) // [1,4,8,8]
	y = n.relu6(y)                                    // Clip with two rank-0 bounds
	y = n.maxPool(y, 2, 2, 0, false)                  // [1,4,4,4]
	y = n.globalPool(y)                               // GlobalAveragePool + Flatten: [1,4]
	y = n.dense("fc", y, 10)                          // Gemm: [1,10]
	y = n.op("Softmax", graph.Attrs{"axis": graph.IntAttr(-1)}, y)
	z := n.input("z", 2, 3, 4)
	w := n.linear("lin", z, 5, 1, false) // MatMul [2,3,4] x [4,5]
	g, err := n.finish(named{"y", y}, named{"w", w})
	if err != nil {
		t.Fatal(err)
	}
	// Conv W 4*3*3*3 + B 4; Gemm W 10*4 + B 10; MatMul W 4*5. The Clip
	// bounds are rank-0 literals and do not count.
	if got, want := Params(g), int64(108+4+40+10+20); got != want {
		t.Errorf("Params = %d, want %d", got, want)
	}
	want := int64(2*4*8*8*27 + // Conv: 2 x outputs x (3*3*3) MACs each
		4*8*8 + // Clip: one per output
		4*4*4*4 + // MaxPool: 2x2 window per output
		4*4*4 + // GlobalAveragePool: one per input
		2*10*4 + // Gemm: 2 x 10 outputs x K=4
		10 + // Softmax
		2*2*3*5*4) // MatMul: 2 x 30 outputs x K=4
	if got := graph.FLOPs(g); got != want {
		t.Errorf("FLOPs = %d, want %d", got, want)
	}
}

// TestOverridesNeverPanic builds every model with small and odd values of
// each override it accepts: each build must succeed or return an error.
func TestOverridesNeverPanic(t *testing.T) {
	set := func(o *Overrides, name string, v int) {
		for _, f := range o.fields() {
			if f.name == name {
				*f.val = v
				return
			}
		}
		t.Fatalf("no override %q", name)
	}
	for _, s := range List() {
		for _, knob := range s.Overrides {
			for _, v := range []int{1, 17} {
				var o Overrides
				set(&o, knob, v)
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s %s=%d panicked: %v", s.Name, knob, v, r)
						}
					}()
					m, err := Build(s.Name, PresetCPU, o)
					if err == nil {
						if err := m.Graph.Validate(); err != nil {
							t.Errorf("%s %s=%d: Validate: %v", s.Name, knob, v, err)
						}
					}
				}()
			}
		}
	}
}
