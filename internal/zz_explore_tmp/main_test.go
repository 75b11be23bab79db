package explore

import (
	"fmt"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/models"
	"github.com/xrl-dev/xrl/rules"
)

func TestExplore(t *testing.T) {
	set, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("rules", len(set.Rules))
	for _, name := range models.Names() {
		m, err := models.Build(name, "cpu", models.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		g := m.Graph
		t0 := time.Now()
		ix := rules.NewIndex(g)
		total := 0
		per := map[string]int{}
		for _, r := range set.Rules {
			ms := ix.FindMatches(r)
			total += len(ms)
			if len(ms) > 0 {
				per[r.Name] = len(ms)
			}
		}
		dm := time.Since(t0)
		t1 := time.Now()
		g.CanonicalHash()
		dh := time.Since(t1)
		t2 := time.Now()
		g.Clone()
		dc := time.Since(t2)
		fmt.Printf("%s nodes=%d inits=%d matches=%d match=%v hash=%v clone=%v\n  %v\n", name, len(g.Nodes), len(g.Initializers), total, dm, dh, dc, per)
	}
}
