package measure

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

func TestProfileByOp(t *testing.T) {
	us := time.Microsecond
	p := &Profile{Total: 120 * us, Nodes: []NodeTime{
		{Name: "q", Op: "MatMul", Time: 30 * us},
		{Name: "bias", Op: "Add", Time: 10 * us},
		{Name: "k", Op: "MatMul", Time: 30 * us},
		{Name: "att", Op: "Attention", Time: 20 * us},
		{Name: "probs", Op: "Softmax", Time: 10 * us},
	}}
	want := []OpTime{
		{Op: "MatMul", Time: 60 * us, Nodes: 2, Share: 0.6},
		{Op: "Attention", Time: 20 * us, Nodes: 1, Share: 0.2},
		{Op: "Add", Time: 10 * us, Nodes: 1, Share: 0.1},
		{Op: "Softmax", Time: 10 * us, Nodes: 1, Share: 0.1},
	}
	if got := p.ByOp(); !reflect.DeepEqual(got, want) {
		t.Errorf("ByOp:\n got %+v\nwant %+v", got, want)
	}
	if got := p.GEMMShare(); got != 0.8 {
		t.Errorf("GEMMShare = %g, want 0.8 (MatMul and Attention)", got)
	}
	if got, want := p.Ops(), []string{"Add", "Attention", "MatMul", "Softmax"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Ops = %v, want %v", got, want)
	}
	empty := &Profile{}
	if len(empty.ByOp()) != 0 || empty.GEMMShare() != 0 || len(empty.Ops()) != 0 {
		t.Errorf("an empty profile has ops %v, GEMM share %g", empty.ByOp(), empty.GEMMShare())
	}
}

// listedProfiler profiles a model as its nodes' ops, 1 µs each, and a
// file as the comma-separated ops its bytes list (refusing every file
// when refuse is set, as ONNX Runtime refuses an old-opset file).
type listedProfiler struct{ refuse bool }

func (listedProfiler) Name() string { return "listed" }

func (listedProfiler) Load(*graph.Model) (Session, error) {
	return nil, fmt.Errorf("listedProfiler only profiles")
}

func (listedProfiler) Profile(m *graph.Model, _, _ int) (*Profile, error) {
	var ops []string
	for _, n := range m.Graph.Nodes {
		ops = append(ops, n.Op)
	}
	return listedProfile(ops), nil
}

func (p listedProfiler) ProfileONNX(data []byte, _ *graph.Model, _, _ int) (*Profile, error) {
	if p.refuse {
		return nil, fmt.Errorf("no kernel for AveragePool(1)")
	}
	return listedProfile(strings.Split(string(data), ",")), nil
}

func listedProfile(ops []string) *Profile {
	p := &Profile{}
	for i, op := range ops {
		p.Nodes = append(p.Nodes, NodeTime{Name: fmt.Sprint("n", i), Op: op, Time: time.Microsecond})
	}
	return p
}

// TestRunOps: the ops run are those of the file when the profiler can
// load it, of the model otherwise; a backend without a profiler is a
// clear error.
func TestRunOps(t *testing.T) {
	model := &graph.Model{Graph: &graph.Graph{Nodes: []*graph.Node{{Op: "Softmax"}, {Op: "MatMul"}, {Op: "MatMul"}}}}
	file := []byte("FusedMatMul,Attention,FusedMatMul")
	for _, tc := range []struct {
		name    string
		be      Backend
		orig    ModelFile
		want    []string
		wantErr string
	}{
		{"file", listedProfiler{}, ModelFile{Model: model, File: file}, []string{"Attention", "FusedMatMul"}, ""},
		{"model", listedProfiler{}, ModelFile{Model: model}, []string{"MatMul", "Softmax"}, ""},
		{"refused file", listedProfiler{refuse: true}, ModelFile{Model: model, File: file}, []string{"MatMul", "Softmax"}, ""},
		{"no profiler", &timedBackend{}, ModelFile{Model: model}, nil, "the timed backend has no per-node profiler"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RunOps(tc.be, tc.orig)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err = %v, want one containing %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case !reflect.DeepEqual(got, tc.want):
				t.Errorf("RunOps = %v, want %v", got, tc.want)
			}
		})
	}
}
