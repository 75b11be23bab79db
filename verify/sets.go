package verify

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/inputs"
)

// maxBranchSeeds bounds the extra random sets drawn to take an If the
// way no set took it yet.
const maxBranchSeeds = 24

// inputSets returns the input sets two models with g's inputs are
// compared on: opts.Seeds random sets from opts.FirstSeed, extra random
// sets (the seeds after them) each of which takes some input-dependent
// If of g a way no earlier set took it, and the user's sets matched to
// g's inputs; and the sentence of Result.Branches. With no random sets
// asked for, no extra ones are drawn.
func inputSets(g *graph.Graph, opts Options) ([]inputs.Set, string, error) {
	draw := opts.Draw
	if draw == nil {
		gen := inputs.New(g, inputs.Options{})
		draw = func(_ *graph.Graph, seed uint64) (map[string]*graph.Tensor, error) { return gen.Draw(seed) }
	}
	var random []inputs.Set
	for k := 0; k < opts.Seeds; k++ {
		seed := opts.FirstSeed + uint64(k)
		in, err := draw(g, seed)
		if err != nil {
			return nil, "", err
		}
		random = append(random, inputs.Set{Name: fmt.Sprintf("seed %d", seed), Tensors: in})
	}
	var user []inputs.Set
	for _, s := range opts.Sets {
		in, err := s.Match(g)
		if err != nil {
			return nil, "", err
		}
		user = append(user, inputs.Set{Name: s.Name, Tensors: in})
	}
	ifs := inputs.InputIfs(g)
	if len(ifs) == 0 {
		return append(random, user...), "", nil
	}
	cov, err := newBranchCover(g, ifs)
	if err == nil {
		for _, s := range append(append([]inputs.Set(nil), random...), user...) {
			if _, err = cov.run(s.Tensors); err != nil {
				break
			}
		}
	}
	if err != nil {
		return append(random, user...), fmt.Sprintf("the Ifs were not checked for being taken both ways: the Go executor cannot run the first model (%v)", err), nil
	}
	var added []uint64
	next := opts.FirstSeed + uint64(opts.Seeds)
	for k := 0; opts.Seeds > 0 && k < maxBranchSeeds && !cov.complete(); k++ {
		seed := next + uint64(k)
		in, err := draw(g, seed)
		if err != nil {
			return nil, "", err
		}
		took, err := cov.run(in)
		if err != nil {
			return nil, "", fmt.Errorf("seed %d, drawn to take the Ifs both ways: %w", seed, err)
		}
		if took {
			random = append(random, inputs.Set{Name: fmt.Sprintf("seed %d", seed), Tensors: in})
			added = append(added, seed)
		}
	}
	sets := append(random, user...)
	return sets, cov.summary(len(sets), added), nil
}
