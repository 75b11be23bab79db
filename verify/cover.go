package verify

import (
	"fmt"
	"strings"

	"github.com/xrl-dev/xrl/executor"
	"github.com/xrl-dev/xrl/graph"
)

// branchCover runs a model on the Go executor and records which ways its
// input-dependent Ifs go (executor.ExecOptions.Branch).
type branchCover struct {
	ex    *executor.Executor
	index map[*graph.Node]int
	ifs   []*graph.Node
	// ways[i] records If i taken its then (0) and else (1) way.
	ways [][2]bool
	// fresh is set when the current run took some If a new way.
	fresh bool
}

// newBranchCover compiles g to record the ways of ifs, nodes of g or of
// its bodies.
func newBranchCover(g *graph.Graph, ifs []*graph.Node) (*branchCover, error) {
	c := &branchCover{index: map[*graph.Node]int{}, ifs: ifs, ways: make([][2]bool, len(ifs))}
	for i, n := range ifs {
		c.index[n] = i
	}
	ex, err := executor.NewExecutor(g, executor.ExecOptions{Branch: c.record})
	if err != nil {
		return nil, err
	}
	c.ex = ex
	return c, nil
}

// record notes that If n took its then way (or else way).
func (c *branchCover) record(n *graph.Node, then bool) {
	i, ok := c.index[n]
	if !ok {
		return
	}
	w := 1
	if then {
		w = 0
	}
	if !c.ways[i][w] {
		c.ways[i][w] = true
		c.fresh = true
	}
}

// run runs the model on in and reports whether some If went a way it had
// not gone before.
func (c *branchCover) run(in map[string]*graph.Tensor) (bool, error) {
	c.fresh = false
	_, err := c.ex.Run(in)
	return c.fresh, err
}

// complete reports whether every If went both ways.
func (c *branchCover) complete() bool {
	for _, w := range c.ways {
		if !w[0] || !w[1] {
			return false
		}
	}
	return true
}

// summary is the sentence of Result.Branches after sets input sets, of
// which the random ones of seeds added were drawn for the Ifs.
func (c *branchCover) summary(sets int, added []uint64) string {
	extra := ""
	if len(added) > 0 {
		seeds := make([]string, len(added))
		for i, s := range added {
			seeds[i] = fmt.Sprint(s)
		}
		extra = fmt.Sprintf(" (with the random sets of seeds %s, drawn for that)", strings.Join(seeds, ", "))
		if len(added) == 1 {
			extra = fmt.Sprintf(" (with the random set of seed %s, drawn for that)", seeds[0])
		}
	}
	var one []string
	for i, w := range c.ways {
		if w[0] && w[1] {
			continue
		}
		way := "then"
		switch {
		case w[1]:
			way = "else"
		case !w[0]:
			way = "neither"
		}
		one = append(one, fmt.Sprintf("If %q (%s way only)", c.ifs[i].Name, way))
	}
	switch {
	case len(one) == 0 && len(c.ifs) == 1:
		return fmt.Sprintf("the If whose condition depends on the inputs was taken both ways%s", extra)
	case len(one) == 0:
		return fmt.Sprintf("each of the %d Ifs whose condition depends on the inputs was taken both ways%s", len(c.ifs), extra)
	}
	return fmt.Sprintf("not taken both ways over the %d input sets%s: %s", sets, extra, strings.Join(one, ", "))
}
