package goexec

import (
	"errors"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/internal/graphtest"
	"github.com/xrl-dev/xrl/measure"
)

// TestBackendRegistered checks that importing the package makes the "go"
// backend available by name, that it runs a model, and that a node the
// executor lacks fails loading with *graph.UnsupportedOpError.
func TestBackendRegistered(t *testing.T) {
	be, err := measure.NewBackend(BackendName, measure.BackendOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	b := graph.NewBuilder("relu")
	b.Output(b.Op("Relu", []*graph.Value{b.Input("x", graph.Float32, 2, 3)}, nil))
	m := graphtest.Model(t, b)
	s, err := be.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x := graph.NewTensor(graph.Float32, 2, 3)
	x.Float32s()[4] = -2
	x.Float32s()[5] = 3
	out, err := s.Run(map[string]*graph.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	y := out[m.Graph.Outputs[0].Name].Float32s()
	if y[4] != 0 || y[5] != 3 {
		t.Errorf("relu gave %v", y)
	}

	m.Graph.Nodes[0].Op = "NoSuchOp"
	_, err = be.Load(m)
	var un *graph.UnsupportedOpError
	if !errors.As(err, &un) || un.Node != m.Graph.Nodes[0] {
		t.Errorf("loading an unknown op: %v, want *graph.UnsupportedOpError on its node", err)
	}
}
