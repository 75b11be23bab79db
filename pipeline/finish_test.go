package pipeline

import (
	"bytes"
	"strings"
	"testing"
)

// TestFinishOrFoldedDropsAWrongGraph gives FinishOrFolded the folded
// start graph and a graph computing another function (a Softmax made a
// Sigmoid): the first is finished as it is; the second is reported, not
// returned, and the folded start graph is finished in its place.
func TestFinishOrFoldedDropsAWrongGraph(t *testing.T) {
	s := smallDecoder(t)
	wrong := s.Model.Graph.Clone()
	changed := false
	for _, n := range wrong.Nodes {
		if n.Op == "Softmax" {
			n.Op, n.Attrs, changed = "Sigmoid", nil, true
			break
		}
	}
	if !changed {
		t.Fatal("the decoder has no Softmax: the test checks nothing")
	}
	cases := []struct {
		name         string
		in           bool // true: the wrong graph
		wantRejected bool
		wantLog      string
	}{
		{"the folded graph", false, false, "equal within tolerance"},
		{"a graph computing another function", true, true, "the optimised graph is not written"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := s.Model.Graph
			if tc.in {
				g = wrong
			}
			var log bytes.Buffer
			out, rejected, err := s.FinishOrFolded(&log, g, 1e-4, 1)
			if err != nil {
				t.Fatal(err)
			}
			if rejected != tc.wantRejected || !strings.Contains(log.String(), tc.wantLog) {
				t.Fatalf("rejected %v, log:\n%s", rejected, log.String())
			}
			for _, n := range out.Graph.Nodes {
				if n.Op == "Sigmoid" {
					t.Fatalf("the returned model has the wrong graph's Sigmoid")
				}
			}
		})
	}
}
