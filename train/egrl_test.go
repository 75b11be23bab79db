package train

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xrl-dev/xrl/egrl"
	"github.com/xrl-dev/xrl/gat"
)

func TestRunEGRL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cfg := quick(tinyBERT(t))
	cfg.Algo, cfg.Runtime, cfg.Dir, cfg.ExpName = AlgoEGRL, "roofline", dir, "egrl"
	cfg.EGRL.Population, cfg.EGRL.Generations, cfg.EGRL.LearnerEpisodes = 3, 2, 1
	out, err := run(t, cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantLines(t, out, "with EGRL: population 3", "generation 2:", "learner member 2", "verified on go", "trained", "environment steps")
	recs, err := egrl.ReadMetrics(filepath.Join(dir, egrl.MetricsFile))
	if err != nil || len(recs) != 2 || recs[1].LearnerMember != 2 {
		t.Fatalf("metrics %+v, %v: want 2 generations, the learner migrated into member 2", recs, err)
	}
	for _, f := range []string{egrl.BestFile, egrl.LearnerFile} {
		if _, err := gat.LoadFile(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, BestModelFile)); err != nil {
		t.Error(err)
	}
}
