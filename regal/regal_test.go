package regal

import (
	"bytes"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/evolve"
	"github.com/xrl-dev/xrl/internal/xrltest"
)

func TestSampleBeta(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct{ a, b float64 }{{1, 1}, {0.5, 0.5}, {5, 1}, {1.6, 8.4}, {41.7, 8.3}}
	for _, tc := range tests {
		const n = 40000
		var s, s2 float64
		for range n {
			x := sampleBeta(rng, tc.a, tc.b)
			if x < 0 || x > 1 {
				t.Fatalf("Beta(%v, %v) drew %v", tc.a, tc.b, x)
			}
			s += x
			s2 += x * x
		}
		mean, vr := s/n, s2/n-(s/n)*(s/n)
		wantMean := tc.a / (tc.a + tc.b)
		wantVar := tc.a * tc.b / ((tc.a + tc.b) * (tc.a + tc.b) * (tc.a + tc.b + 1))
		if math.Abs(mean-wantMean) > 0.01 || math.Abs(vr-wantVar) > 0.1*wantVar+1e-4 {
			t.Errorf("Beta(%v, %v): mean %.4f var %.5f, want %.4f and %.5f", tc.a, tc.b, mean, vr, wantMean, wantVar)
		}
	}
}

func TestBetaParams(t *testing.T) {
	if a, b := betaParams(MeanBins/2, 0); a != 1 || b != 1 {
		t.Errorf("middle mean, lowest concentration: Beta(%v, %v), want the uniform Beta(1, 1)", a, b)
	}
	for m := range MeanBins {
		for v := range Concentrations {
			a, b := betaParams(m, v)
			if !(a > 0 && b > 0) || math.Abs(a+b-Concentrations[v]) > 1e-12 {
				t.Errorf("bins (%d, %d): Beta(%v, %v)", m, v, a, b)
			}
		}
	}
}

// chainGraph is a chain whose Identity nodes and repeated Relus can go.
func chainGraph(t *testing.T, name string, ops ...string) Graph {
	t.Helper()
	e, err := env.New(env.Config{Model: xrltest.ChainModel(t, ops...), Rewriter: xrltest.DropRewriter{},
		Latency: &xrltest.NodeLatency{}, Horizon: 12, MaxCandidates: 16})
	if err != nil {
		t.Fatal(err)
	}
	return Graph{Name: name, Env: e}
}

func TestFeatures(t *testing.T) {
	g := chainGraph(t, "c", "Identity", "Relu", "Relu", "Tanh")
	obs, _, err := g.Env.Reset(1)
	if err != nil {
		t.Fatal(err)
	}
	d := FeatureDim()
	x := make([]float32, len(obs.Mask)*d)
	features(obs, g.Env.Candidates(), x)
	for a, ok := range obs.Mask {
		row := x[a*d : (a+1)*d]
		nonzero := 0
		for _, v := range row {
			if v != 0 {
				nonzero++
			}
		}
		switch {
		case !ok && nonzero != 0:
			t.Errorf("masked action %d has features", a)
		case a == obs.NoOp() && row[d-1] != 1:
			t.Errorf("No-Op row lacks its flag")
		case ok && a < len(obs.Candidates) && (row[d-3] >= 0 || row[d-1] != 0):
			t.Errorf("candidate %d removes a node but its node change is %v (No-Op flag %v)", a, row[d-3], row[d-1])
		}
	}
}

func TestCheckpoint(t *testing.T) {
	net, err := New(Config{Seed: 7, Hidden: []int{8}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := net.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	back, err := Load(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range net.Params() {
		for j, v := range p.Value {
			if back.Params()[i].Value[j] != v {
				t.Fatalf("parameter %s[%d] changed in the round trip", p.Name, j)
			}
		}
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 1
	for name, data := range map[string][]byte{
		"truncated": good[:len(good)-9], "bit flip": flipped, "empty": nil, "other file": []byte("xrl-gat\nxxxxxxxxxxxxxxxx"),
	} {
		if _, err := Load(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "regal") {
			t.Errorf("%s: %v", name, err)
		}
	}
	path := filepath.Join(t.TempDir(), "n.regal")
	if err := net.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path + ".missing"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestTrainBeatsUniform trains on two chains and evaluates on a third,
// held out: with a budget too small for uniform keys to find the
// optimum reliably, the trained network's keys must do better on
// average. Uniform keys choose No-Op as often as any rewrite and so end
// episodes early; the network can learn to give No-Op small keys.
func TestTrainBeatsUniform(t *testing.T) {
	train := []Graph{
		chainGraph(t, "a", "Identity", "Relu", "Relu", "Identity", "Relu", "Tanh", "Identity", "Relu", "Relu"),
		chainGraph(t, "b", "Relu", "Relu", "Relu", "Identity", "Tanh", "Identity", "Identity", "Relu"),
	}
	held := []Graph{chainGraph(t, "held", "Identity", "Identity", "Relu", "Relu", "Relu", "Tanh", "Relu", "Relu", "Identity", "Relu")}
	net, err := New(Config{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	bcfg := evolve.BRKGAConfig{Evaluations: 4, Population: 2, Length: 12}
	stats, err := Train(net, train, TrainConfig{Iterations: 80, BRKGA: bcfg, Seed: 1, LR: 3e-3})
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 80 || stats[0].Choices == 0 {
		t.Fatalf("%d iterations, first with %d choices", len(stats), stats[0].Choices)
	}
	rows, err := Compare(net, held, bcfg, 10)
	if err != nil {
		t.Fatal(err)
	}
	var sn, su float64
	for _, r := range rows {
		sn += float64(r.Network)
		su += float64(r.Uniform)
	}
	if !(sn < su) {
		t.Errorf("held-out chain: mean best %v with the network, %v with uniform keys", sn/10, su/10)
	}
	t.Logf("held-out chain: mean best %.2fµs with the network, %.2fµs with uniform keys", sn/10/1e3, su/10/1e3)
}

func TestTrainErrors(t *testing.T) {
	net, _ := New(Config{})
	g := chainGraph(t, "c", "Identity", "Relu")
	for _, cfg := range []TrainConfig{{Iterations: -1}, {BaselineDecay: 1.5}, {LR: -1}} {
		if _, err := Train(net, []Graph{g}, cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	if _, err := Train(net, nil, TrainConfig{}); err == nil {
		t.Error("no graphs accepted")
	}
	if _, err := New(Config{Features: 3}); err == nil {
		t.Error("a feature width of another build accepted")
	}
}
