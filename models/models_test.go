package models

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the built graphs")

// layerParams counts one transformer layer of width h and MLP width f:
// Q, K, V and output projections 4(h*h + h), MLP h*f + f + f*h + h, and
// two LayerNorms 2*2h.
func layerParams(h, f int) int64 {
	return int64(4*(h*h+h) + 2*h*f + f + h + 4*h)
}

// bertParams: embedding LayerNorm 2h plus the layers.
func bertParams(h, f, layers int) int64 { return int64(2*h) + int64(layers)*layerParams(h, f) }

// vitParams: patch convolution 3*p*p*h + h, class token h, position
// embeddings (tokens)*h, layers, final LayerNorm 2h, head h*c + c.
func vitParams(image, p, h, f, layers, classes int) int64 {
	tokens := (image/p)*(image/p) + 1
	return int64(3*p*p*h+h+h+tokens*h+2*h+h*classes+classes) + int64(layers)*layerParams(h, f)
}

// dalleParams: position embeddings t*h, the causal mask t*t (a float
// constant), layers, final LayerNorm 2h, codebook head h*v + v.
func dalleParams(text, grid, h, f, layers, vocab int) int64 {
	t := text + grid*grid
	return int64(t*h+t*t+2*h+h*vocab+vocab) + int64(layers)*layerParams(h, f)
}

// transducerParams: input projection feat*h + h, audio layers and
// LayerNorm 2h, label mask u*u, label layers and LayerNorm 2h, joint
// projections h*j + j (audio) and h*j (label), output j*v + v.
func transducerParams(feat, u, h, f, audio, label, j, v int) int64 {
	return int64(feat*h+h+2*h+u*u+2*h+h*j+j+h*j+j*v+v) + int64(audio+label)*layerParams(h, f)
}

// nasrnnParams: eight input matrices in*h, eight recurrent matrices h*h
// and eight biases h, shared by all steps.
func nasrnnParams(in, h int) int64 { return int64(8 * (in*h + h*h + h)) }

type want struct {
	nodes  int
	params int64
}

// expected lists node and parameter counts per model and preset.
//
// CNN parameters count what ONNX stores: weights, biases and the four
// BatchNormalization tensors (scale, bias, running mean and variance);
// torchvision counts only scale and bias as parameters and keeps the
// running statistics as buffers, Keras reports them as non-trainable.
// CNN presets differ only in image size, so both presets have the same
// counts.
var expected = func() map[string]want {
	cnn := func(nodes int, params int64) []want { return []want{{nodes, params}, {nodes, params}} }
	m := map[string][]want{
		// Nodes: 1 embedding LayerNorm + 33 per layer (attention 20: six
		// projection nodes, 3 Reshape + 3 Transpose, MatMul, Div, Softmax,
		// MatMul, Transpose, Reshape, output MatMul + Add; Add + LN; MLP 9:
		// two MatMul + Add pairs and five GELU nodes; Add + LN).
		"bert": {
			{1 + 8*33, bertParams(1024, 4096, 8)},
			{1 + 2*33, bertParams(256, 1024, 2)},
		},
		// Nodes: embeddings 6 (Conv, Reshape, Transpose, Expand, Concat,
		// Add), 33 per pre-norm layer, final LN + Gather + Gemm.
		// timm's vit_base_patch16_224 has 86,567,656 parameters with 197
		// tokens; with 65 tokens 132*768 fewer: 86,466,280.
		"vit": {
			{6 + 12*33 + 3, vitParams(128, 16, 768, 3072, 12, 1000)},
			{6 + 2*33 + 3, vitParams(128, 16, 384, 1536, 2, 1000)},
		},
		// Nodes: Concat + Add, 34 per masked layer, LN + MatMul + Add.
		"dalle": {
			{2 + 8*34 + 3, dalleParams(16, 8, 768, 2048, 8, 8192)},
			{2 + 2*34 + 3, dalleParams(16, 8, 384, 1024, 2, 2048)},
		},
		// Nodes: input projection 2, 29 per audio layer (ReLU MLP), LN;
		// 30 per masked label layer, LN; joint 9 (MatMul, Add, Reshape,
		// MatMul, Reshape, Add, Tanh, MatMul, Add).
		"transducer": {
			{2 + 12*29 + 1 + 2*30 + 1 + 9, transducerParams(128, 16, 512, 2048, 12, 2, 512, 10)},
			{2 + 2*29 + 1 + 2*30 + 1 + 9, transducerParams(128, 16, 256, 1024, 2, 2, 256, 10)},
		},
		// Nodes: stem 4 (Conv, BN, Relu, MaxPool); 8 basic blocks of 7;
		// 3 projection shortcuts of 2; GlobalAveragePool, Flatten, Gemm.
		// Params: torchvision 11,689,512 + BN running stats 2*4,800
		// (BN channels 64 + 2*2*(64+128+256+512) + 128+256+512).
		"resnet18": cnn(4+8*7+3*2+3, 11_689_512+2*4_800),
		// Nodes: stem 4; 16 bottlenecks of 10; 4 projections of 2; head 3.
		// Params: torchvision 25,557,032 + 53,120 running stats (Keras
		// ResNet50's non-trainable count; BN channels 26,560).
		"resnet50": cnn(4+16*10+4*2+3, 25_557_032+53_120),
		// Same graph shape as ResNet-50. Params: torchvision
		// resnext50_32x4d 25,028,904 + 2*34,112 running stats (BN channels
		// 64 + sum over stages of blocks*(2*width + 4*planes) + 3,840).
		"resnext50": cnn(4+16*10+4*2+3, 25_028_904+2*34_112),
		// Nodes (BasicConv2d = Conv, BN, Relu): stem 5 convs + 2 MaxPools
		// = 17; Inception-A 7 convs + AveragePool + Concat = 23; B 4 convs
		// + MaxPool + Concat = 14; C 10 convs + AveragePool + Concat = 32;
		// D 6 convs + MaxPool + Concat = 20; E 9 convs + AveragePool + 3
		// Concats = 31; head 3.
		// Params: torchvision inception_v3 without aux head 23,834,568 +
		// 34,432 running stats (Keras InceptionV3 non-trainable count).
		"inceptionv3": cnn(17+3*23+14+4*32+20+2*31+3, 23_834_568+34_432),
		// Nodes: Conv + Relu, 3 MaxPools, 8 fire modules of 7, classifier
		// Conv + Relu, GlobalAveragePool + Flatten. Params: torchvision
		// squeezenet1_1 1,235,496 (no BatchNorm).
		"squeezenet": cnn(2+3+8*7+2+2, 1_235_496),
		// Nodes: stem 3; the t=1 block 5; 16 expanded blocks of 8; 10
		// residual Adds; final 1x1 conv 3; head 3. Params: Keras
		// MobileNetV2 total 3,538,984 (torchvision 3,504,872 + 34,112).
		"mobilenetv2": cnn(3+5+16*8+10+3+3, 3_538_984),
		// Nodes: stem 2; stem cell 0: 53; stem cell 1: 53 + factorised
		// reduction 9; 12 normal cells of 52 with fits (3 x 9 factorised,
		// 9 x 3 projections); 2 reduction cells of 53 + 3; head 4.
		// Params: Keras NASNetMobile total 5,326,716.
		"nasneta": cnn(2+53+62+12*52+3*9+9*3+2*56+4, 5_326_716),
		// Nodes: 55 per step (32 for the eight combinations, 8
		// activations, 8 second-level nodes, 2 cell injection, 1 new c,
		// 4 new h).
		"nasrnn": {
			{5 * 55, nasrnnParams(512, 512)},
			{5 * 55, nasrnnParams(512, 512)},
		},
	}
	out := map[string]want{}
	for name, w := range m {
		out[name+"/"+PresetPaper] = w[0]
		out[name+"/"+PresetCPU] = w[1]
	}
	return out
}()

// opCounts renders the per-op node counts, one "Op count" line each.
func opCounts(g *graph.Graph) string {
	counts := map[string]int{}
	for _, n := range g.Nodes {
		counts[n.Op]++
	}
	ops := make([]string, 0, len(counts))
	for op := range counts {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, "%s %d\n", op, counts[op])
	}
	return b.String()
}

// TestBuildAll builds every model at every preset, validates it and
// checks node, parameter and per-op counts.
func TestBuildAll(t *testing.T) {
	if len(List()) != 12 {
		t.Errorf("registry has %d models, want 12: %v", len(List()), Names())
	}
	for _, s := range List() {
		for _, preset := range s.Presets {
			key := s.Name + "/" + preset
			t.Run(key, func(t *testing.T) {
				m, err := Build(s.Name, preset, Overrides{})
				if err != nil {
					t.Fatal(err)
				}
				g := m.Graph
				if err := g.Validate(); err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if m.IRVersion != 8 || m.Opset("") != 17 || m.ProducerName != "xrl" {
					t.Errorf("model header: IR %d, opset %d, producer %q", m.IRVersion, m.Opset(""), m.ProducerName)
				}
				w, ok := expected[key]
				if !ok {
					t.Fatalf("no expected counts for %s", key)
				}
				if len(g.Nodes) != w.nodes {
					t.Errorf("nodes = %d, want %d", len(g.Nodes), w.nodes)
				}
				if p := Params(g); p != w.params {
					t.Errorf("params = %d, want %d", p, w.params)
				}
				if graph.FLOPs(g) <= 0 {
					t.Errorf("FLOPs = %d, want > 0", graph.FLOPs(g))
				}
				checkGolden(t, filepath.Join("testdata", s.Name+"_"+preset+".golden"), opCounts(g))
			})
		}
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./models -update to create it)", err)
	}
	if string(data) != got {
		t.Errorf("%s differs:\n got:\n%s\nwant:\n%s", path, got, data)
	}
}

// The cpu presets are sized by measured latency (about 8 ms per inference
// in ONNX Runtime on two cores), not by FLOPs. On the AVX-512 machine they
// were sized on, ONNX Runtime reaches from about 75 GFLOP/s (NASNet-A: many
// small depthwise and 1x1 convolutions) to about 370 GFLOP/s (the dense
// convolutions of ResNet-18 and SqueezeNet at batch 4), so that latency
// corresponds to 0.5-3 GFLOP (NASNet-A 0.59, SqueezeNet 2.82). The window
// below has a little slack on either side; a preset leaving it was
// probably resized by mistake.
const (
	cpuMinFLOPs = 4e8
	cpuMaxFLOPs = 3.5e9
)

// TestCPUPresetBudget checks that every cpu preset costs 0.4-3.5 GFLOP
// and uses the same operator kinds as the paper preset (read from its
// golden file).
func TestCPUPresetBudget(t *testing.T) {
	for _, s := range List() {
		m, err := Build(s.Name, PresetCPU, Overrides{})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if f := graph.FLOPs(m.Graph); f < cpuMinFLOPs || f > cpuMaxFLOPs {
			t.Errorf("%s cpu: %.3f GFLOP, want %.1f-%.1f", s.Name, float64(f)/1e9, cpuMinFLOPs/1e9, cpuMaxFLOPs/1e9)
		}
		paper, err := os.ReadFile(filepath.Join("testdata", s.Name+"_"+PresetPaper+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := opKinds(opCounts(m.Graph)), opKinds(string(paper)); got != want {
			t.Errorf("%s: cpu preset uses ops %s, paper preset %s", s.Name, got, want)
		}
	}
}

// opKinds keeps the op names of an opCounts rendering.
func opKinds(counts string) string {
	var ops []string
	for _, line := range strings.Split(strings.TrimSpace(counts), "\n") {
		ops = append(ops, strings.Fields(line)[0])
	}
	return strings.Join(ops, ",")
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name, model, preset string
		o                   Overrides
		want                string
	}{
		{"unknown model", "alexnet", PresetCPU, Overrides{}, "unknown model \"alexnet\" (valid: bert, dalle,"},
		{"unknown preset", "bert", "tiny", Overrides{}, "unknown preset \"tiny\" (valid: paper, cpu)"},
		{"override not applicable", "resnet50", PresetCPU, Overrides{Heads: 4}, "override \"heads\" does not apply (valid: batch, image, classes)"},
		{"negative override", "bert", PresetCPU, Overrides{Layers: -1}, "layers=-1 must be positive"},
		{"heads do not divide hidden", "bert", PresetCPU, Overrides{Heads: 3}, "hidden (256) must be a multiple of heads (3)"},
		{"image not multiple of patch", "vit", PresetCPU, Overrides{Image: 100}, "image (100) must be a multiple of patch (16)"},
		{"inception image too small", "inceptionv3", PresetCPU, Overrides{Image: 64}, "image must be at least 75 pixels"},
		{"nasnet filters", "nasneta", PresetCPU, Overrides{Hidden: 1000}, "must be a multiple of 24"},
		{"seq on a cnn", "squeezenet", PresetPaper, Overrides{Seq: 8}, "override \"seq\" does not apply"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(tc.model, tc.preset, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestOverrides(t *testing.T) {
	tests := []struct {
		model string
		o     Overrides
		nodes int
		// input is the first graph input's wanted shape.
		input  string
		params int64
	}{
		{"bert", Overrides{Layers: 3, Batch: 1, Seq: 16}, 1 + 3*33, "1x16x256", bertParams(256, 1024, 3)},
		// The MLP width follows the hidden width (1024 * 512/256).
		{"bert", Overrides{Hidden: 512, Heads: 8}, 67, "8x64x512", bertParams(512, 2048, 2)},
		{"vit", Overrides{Image: 64, Classes: 10}, 75, "4x3x64x64", vitParams(64, 16, 384, 1536, 2, 10)},
		{"dalle", Overrides{Seq: 8, Image: 4}, 73, "3x8x384", dalleParams(8, 4, 384, 1024, 2, 2048)},
		{"transducer", Overrides{Seq: 40, Layers: 3}, 2 + 3*29 + 1 + 2*30 + 1 + 9, "6x40x128", transducerParams(128, 16, 256, 1024, 3, 2, 256, 10)},
		{"resnet50", Overrides{Batch: 2, Image: 96, Classes: 10}, 175, "2x3x96x96", 25_557_032 + 53_120 - 2049*990},
		{"nasneta", Overrides{Layers: 2}, 2 + 53 + 62 + 6*52 + 3*9 + 3*3 + 2*56 + 4, "1x3x160x160", -1},
		{"nasrnn", Overrides{Seq: 3, Hidden: 256}, 3 * 55, "48x256", nasrnnParams(256, 256)},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s%+v", tc.model, tc.o), func(t *testing.T) {
			m, err := Build(tc.model, PresetCPU, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			g := m.Graph
			if len(g.Nodes) != tc.nodes {
				t.Errorf("nodes = %d, want %d", len(g.Nodes), tc.nodes)
			}
			if got := g.Inputs[0].Shape.String(); got != tc.input {
				t.Errorf("input shape = %s, want %s", got, tc.input)
			}
			if tc.params >= 0 && Params(g) != tc.params {
				t.Errorf("params = %d, want %d", Params(g), tc.params)
			}
		})
	}
}

// TestDeterministic checks that a build is a pure function of its config.
func TestDeterministic(t *testing.T) {
	for _, name := range []string{"bert", "nasneta", "mobilenetv2"} {
		a, err := Build(name, PresetCPU, Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Build(name, PresetCPU, Overrides{})
		if a.Graph.CanonicalHash() != b.Graph.CanonicalHash() {
			t.Errorf("%s: two builds differ", name)
		}
	}
}

func TestListSpecs(t *testing.T) {
	for _, s := range List() {
		if s.Description == "" || len(s.Presets) != 2 || s.Presets[0] != PresetPaper || len(s.Overrides) == 0 {
			t.Errorf("spec %+v incomplete", s)
		}
		if !strings.Contains(s.Overrides[0], "batch") {
			t.Errorf("%s: overrides %v lack batch", s.Name, s.Overrides)
		}
	}
}
