package rewrite

import (
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// TestPruneSplitsUnevenProjection: in the last layer of exports whose
// classifier reads token 0, the packed q/k/v projection's query columns
// are needed for one row and its key and value columns for every row.
// PruneDead splits the projection so that the query part is computed for
// that row only, and the result computes what the export does.
func TestPruneSplitsUnevenProjection(t *testing.T) {
	tests := []struct {
		export string
		tuning map[string][]int
		at     []map[string][]int
		// saved is the least fraction of FLOPs the split saves beyond
		// pruning the packed projection whole.
		saved float64
	}{
		{"encoder_classifier", idsBinding("ids", 1, 32), []map[string][]int{idsBinding("ids", 2, 9)}, 0.02},
		{"vit_torchvision", imageBinding("image", 1, 64), []map[string][]int{imageBinding("image", 2, 64)}, 0.02},
	}
	for _, tt := range tests {
		t.Run(tt.export, func(t *testing.T) {
			declared, g := loadSymbolic(t, "../testdata/corpus/"+tt.export+".onnx", tt.tuning)
			demand, err := demandRegions(g)
			if err != nil {
				t.Fatal(err)
			}
			split, changed, err := splitUneven(g, demand)
			if err != nil || !changed {
				t.Fatalf("splitUneven: changed %v, %v", changed, err)
			}
			whole, _, err := pruneWhole(g)
			if err != nil {
				t.Fatal(err)
			}
			_, out, changed := applyPass(t, "PruneDead", PruneDead, g)
			if !changed {
				t.Fatal("PruneDead changed nothing")
			}
			if f0, f1 := graph.FLOPs(whole), graph.FLOPs(out); float64(f1) > (1-tt.saved)*float64(f0) {
				t.Errorf("FLOPs %d with the projection pruned whole, %d split: want at least %.0f%% fewer", f0, f1, 100*tt.saved)
			}
			if countOps(split, "MatMul") <= countOps(g, "MatMul") {
				t.Errorf("%d MatMuls after splitting, %d before", countOps(split, "MatMul"), countOps(g, "MatMul"))
			}
			sameAtShapesTol(t, declared, out, append([]map[string][]int{tt.tuning}, tt.at...), 1e-9)
		})
	}
}
