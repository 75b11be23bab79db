package plots

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/xrl-dev/xrl/ppo"
)

func records(n int) *ppo.Records {
	recs := &ppo.Records{}
	for i := 0; i < n; i++ {
		r := ppo.EpisodeRecord{Type: "episode", Episode: i + 1, Return: ppo.Float(i % 7),
			Speedup: ppo.Float(1 + float64(i%5)/100), BestSpeedup: 1.04, Rules: map[string]int{"fuse": 2}}
		if i%3 == 0 {
			r.Rules["merge"] = 1
		}
		recs.Episodes = append(recs.Episodes, r)
	}
	return recs
}

func TestRuleGrid(t *testing.T) {
	cases := []struct {
		episodes, cols, per int
		fuse0, merge0       float64 // first column's counts
	}{
		{10, 10, 1, 2, 1},
		{450, 150, 3, 6, 1},
	}
	for _, c := range cases {
		g, labels, maxZ := newRuleGrid(records(c.episodes))
		cols, rows := g.Dims()
		if cols != c.cols || rows != 2 || g.per != c.per {
			t.Fatalf("%d episodes: grid %dx%d per %d", c.episodes, cols, rows, g.per)
		}
		// Most applied rule ("fuse") on top, i.e. in the last row.
		if labels[1] != "fuse" || labels[0] != "merge" {
			t.Fatalf("labels %v", labels)
		}
		if g.Z(0, 1) != c.fuse0 || g.Z(0, 0) != c.merge0 || maxZ != 2*float64(c.per) {
			t.Errorf("%d episodes: first column fuse %v merge %v, max %v", c.episodes, g.Z(0, 1), g.Z(0, 0), maxZ)
		}
		if x := g.X(0); x != float64(c.per+1)/2 {
			t.Errorf("first column centred at episode %v", x)
		}
	}
	if _, labels, _ := newRuleGrid(&ppo.Records{}); len(labels) != 1 {
		t.Errorf("empty run labels %v", labels)
	}
}

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, ppo.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, r := range records(40).Episodes {
		enc.Encode(r)
	}
	f.Close()
	paths, err := WriteAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("wrote %v", paths)
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 200 {
			t.Errorf("%s is %v", p, b)
		}
	}
	if _, err := WriteAll(t.TempDir()); err == nil {
		t.Error("WriteAll without metrics succeeded")
	}
}

func TestPerModel(t *testing.T) {
	recs := &ppo.Records{Episodes: []ppo.EpisodeRecord{
		{Episode: 1, Model: "a", BestSpeedup: 1},
		{Episode: 2, Model: "b", BestSpeedup: 1.5},
		{Episode: 3, Model: "a", BestSpeedup: 1.2},
	}}
	got := perModel(recs)
	if len(got) != 2 || got[0].name != "a best so far" || got[1].name != "b best so far" {
		t.Fatalf("series %+v", got)
	}
	if len(got[0].best) != 2 || got[0].best[1] != (plotter.XY{X: 3, Y: 1.2}) || got[1].best[0] != (plotter.XY{X: 2, Y: 1.5}) {
		t.Fatalf("points of a %v, of b %v", got[0].best, got[1].best)
	}
	if perModel(records(3)) != nil {
		t.Fatal("a one-model run has no per-model series")
	}
	if err := Speedup(recs, filepath.Join(t.TempDir(), "s.png")); err != nil {
		t.Fatal(err)
	}
}
