package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// TestPruneOneQueryAttention: exports whose classifier reads token 0
// (torch nn.TransformerEncoder sequence-first, Hugging Face style BERT
// batch-first, torchvision's ViT) are left, once pruned, with a last
// layer whose queries are one row. PruneDead then computes that row's
// products with the keys and values without projecting the keys and
// values of every row: two products of the last layer go, the FLOPs
// fall, and the result computes what the export does at other batches
// and lengths.
func TestPruneOneQueryAttention(t *testing.T) {
	tests := []struct {
		export string
		tuning map[string][]int
		at     []map[string][]int
		// saved is the least fraction of the pruned graph's FLOPs the
		// rewrite saves.
		saved float64
	}{
		{"encoder_classifier", idsBinding("ids", 1, 32), []map[string][]int{idsBinding("ids", 2, 9), idsBinding("ids", 1, 1)}, 0.02},
		{"encoder_classifier_dyn", idsBinding("ids", 1, 32), []map[string][]int{idsBinding("ids", 3, 17)}, 0.02},
		{"bert_hf", idsMaskBinding(1, 48), []map[string][]int{idsMaskBinding(2, 7)}, 0.02},
		{"vit_torchvision", imageBinding("image", 1, 64), []map[string][]int{imageBinding("image", 2, 64)}, 0.005},
	}
	for _, tt := range tests {
		t.Run(tt.export, func(t *testing.T) {
			declared, g := loadSymbolic(t, "../testdata/corpus/"+tt.export+".onnx", tt.tuning)
			rows, changed, err := pruneRows(g)
			if err != nil || !changed {
				t.Fatalf("pruneRows: changed %v, %v", changed, err)
			}
			_, out, changed := applyPass(t, "PruneDead", PruneDead, g)
			if !changed {
				t.Fatal("PruneDead changed nothing")
			}
			if f0, f1 := graph.FLOPs(rows), graph.FLOPs(out); float64(f1) > (1-tt.saved)*float64(f0) {
				t.Errorf("FLOPs %d pruned, %d with the one-row queries: want at least %.1f%% fewer", f0, f1, 100*tt.saved)
			}
			// The keys' and values' projections of the last layer are gone;
			// per-head products replace them.
			if got, was := projections(out), projections(rows); got != was-2 {
				t.Errorf("%d projections by a weight matrix after, %d before: want two fewer", got, was)
			}
			if _, again, err := oneQueryAttention(out); err != nil || again {
				t.Errorf("oneQueryAttention on its own result: changed %v, %v", again, err)
			}
			sameAtShapesTol(t, declared, out, append([]map[string][]int{tt.tuning}, tt.at...), 1e-9)
			productsSame(t, rows)
		})
	}
}

// productsSame checks the rewritten products themselves, not only the
// model's outputs: a softmax hides a constant added to a row of scores
// (the key bias's term), so the products are made outputs of g and
// compared before and after.
func productsSame(t *testing.T, g *graph.Graph) {
	t.Helper()
	g = g.Clone()
	q := &oneQuery{f: newAttnFuser(g)}
	keys, values := 0, 0
	for _, n := range g.Nodes {
		if m, ok := q.match(n); ok {
			g.Outputs = append(g.Outputs, n.Outputs[0])
			if m.keys {
				keys++
			} else {
				values++
			}
		}
	}
	if keys != 1 || values != 1 {
		t.Fatalf("%d products with keys, %d with values: want one of each", keys, values)
	}
	out, changed, err := oneQueryAttention(g)
	if err != nil || !changed {
		t.Fatalf("oneQueryAttention: changed %v, %v", changed, err)
	}
	verifySame(t, g, out, "one-row query products")
}

// TestPruneOneQuerySmall: below MinOneQueryWork (the corpus ViT of 32x32
// images, 17 tokens of width 64) the products stay as they are: the nodes
// the rewrite adds would cost more than the multiplications it saves.
func TestPruneOneQuerySmall(t *testing.T) {
	_, g := loadSymbolic(t, "../testdata/corpus/vit_tiny.onnx", imageBinding("image", 1, 32))
	rows, changed, err := pruneRows(g)
	if err != nil || !changed {
		t.Fatalf("pruneRows: changed %v, %v", changed, err)
	}
	out, one, err := oneQueryAttention(rows)
	if err != nil || one {
		t.Fatalf("oneQueryAttention: changed %v, %v", one, err)
	}
	if projections(out) != projections(rows) {
		t.Errorf("%d projections, %d before", projections(out), projections(rows))
	}
}

// projections counts the MatMuls by a constant 2-D weight matrix.
func projections(g *graph.Graph) int {
	n := 0
	for _, x := range g.Nodes {
		if x.Op == "MatMul" && x.Input(1).IsConst() && len(shape(x.Input(1))) == 2 {
			n++
		}
	}
	return n
}
