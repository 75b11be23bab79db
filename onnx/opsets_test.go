package onnx

import (
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

func TestCheckOpset(t *testing.T) {
	relu := &graph.Graph{Nodes: []*graph.Node{{Name: "r", Op: "Relu"}}}
	custom := &graph.Graph{Nodes: []*graph.Node{{Name: "c", Op: "Thing", Domain: "com.example"}}}
	cases := []struct {
		name   string
		opsets []graph.OpsetID
		g      *graph.Graph
		ok     bool
	}{
		{"opset 13", []graph.OpsetID{{Version: 13}}, relu, true},
		{"opset 9", []graph.OpsetID{{Version: 9}}, relu, true},
		{"opset 21 as ai.onnx", []graph.OpsetID{{Domain: "ai.onnx", Version: 21}}, relu, true},
		{"opset 1 (converted)", []graph.OpsetID{{Version: 1}}, relu, true},
		{"opset 22", []graph.OpsetID{{Version: 22}}, relu, false},
		{"opset 99", []graph.OpsetID{{Version: 99}}, relu, false},
		{"opset 0", []graph.OpsetID{{Version: 0}}, relu, false},
		{"no default opset, default nodes", nil, relu, false},
		{"custom domain only", []graph.OpsetID{{Domain: "com.example", Version: 1}}, custom, true},
	}
	for _, c := range cases {
		err := CheckOpset(&graph.Model{Opsets: c.opsets, Graph: c.g})
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok=%v", c.name, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "opsets 9 to 21") {
			t.Errorf("%s: %q does not name the supported range", c.name, err)
		}
	}
}
