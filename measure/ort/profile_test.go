package ort

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/measure"
)

func TestParseTrace(t *testing.T) {
	trace := `[
{"cat":"Session","name":"model_run","ts":100,"dur":50,"args":{}},
{"cat":"Node","name":"xrl0_kernel_time","ts":105,"dur":20,"args":{"op_name":"MatMul"}},
{"cat":"Node","name":"LayerNorm_kernel_time","ts":130,"dur":10,"args":{"op_name":"LayerNormalization"}},
{"cat":"Session","name":"model_run","ts":200,"dur":40,"args":{}},
{"cat":"Node","name":"xrl0_kernel_time","ts":205,"dur":16,"args":{"op_name":"MatMul"}},
{"cat":"Node","name":"LayerNorm_kernel_time","ts":225,"dur":8,"args":{"op_name":"LayerNormalization"}},
{"cat":"Node","name":"xrl0_fence_before","ts":225,"dur":1,"args":{}},
{"cat":"Session","name":"model_run","ts":300,"dur":60,"args":{}},
{"cat":"Node","name":"xrl0_kernel_time","ts":305,"dur":30,"args":{"op_name":"MatMul"}},
{"cat":"Node","name":"LayerNorm_kernel_time","ts":340,"dur":12,"args":{"op_name":"LayerNormalization"}}
]`
	// The first run is a warm-up; of the other two the fastest is kept.
	p, err := parseTrace([]byte(trace), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Total.Microseconds() != 40 || len(p.Nodes) != 2 {
		t.Fatalf("got %+v", p)
	}
	if n := p.Nodes[0]; n.Name != "xrl0" || n.Op != "MatMul" || n.Time.Microseconds() != 16 {
		t.Errorf("node 0: %+v", n)
	}
	if n := p.Nodes[1]; n.Name != "LayerNorm" || n.Time.Microseconds() != 8 {
		t.Errorf("node 1: %+v", n)
	}
	for _, bad := range []string{"", "{", `[{"cat":"Session","name":"model_run","ts":1,"dur":1}]`} {
		if _, err := parseTrace([]byte(bad), 1); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

// TestProfileModelInORT profiles a MatMul chain in ONNX Runtime: every
// MatMul must get its own time, and the profile's latency must be of the
// order of the measured one (timing on a shared machine: a loose bound).
func TestProfileModelInORT(t *testing.T) {
	be, err := New(measure.BackendOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := matmulChain(t, 16)
	for i, n := range m.Graph.Nodes {
		n.Name = fmt.Sprintf("xrl%d", i)
	}
	p, err := be.Profile(m, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Nodes) != 16 {
		t.Fatalf("want 16 profiled nodes, got %d: %+v", len(p.Nodes), p.Nodes)
	}
	for _, n := range p.Nodes {
		if !strings.HasPrefix(n.Name, "xrl") || n.Op != "MatMul" || n.Time <= 0 {
			t.Errorf("node %+v", n)
		}
	}
	if p.Total <= 0 {
		t.Errorf("no end-to-end time: %+v", p)
	}
	lm, err := measure.NewLatencyModel("profile", measure.BackendOptions{Threads: 1}, measure.MeasureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	est, err := lm.Latency(matmulChain(t, 16))
	if err != nil {
		t.Fatal(err)
	}
	meas, err := (&measure.Measured{Backend: be, Options: measure.MeasureOptions{Warmup: 3, Runs: 40}}).Latency(matmulChain(t, 16))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("profile %v, measured steady %v", est.Median, meas.Steady)
	if r := float64(est.Median) / float64(meas.Steady); r < 0.5 || r > 2 {
		t.Errorf("profile estimate %v vs measured %v", est.Median, meas.Steady)
	}
}
