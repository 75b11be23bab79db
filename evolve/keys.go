package evolve

import (
	"errors"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/env"
)

// KeyDist is the distribution of fresh keys under priority decoding (the
// mutant-sampling distribution of REGAL's BRKGA): at a decision point it
// draws one key in [0, 1] per action of obs. cands are the candidates the
// valid actions apply (env.Env.Candidates), for distributions that look
// at the rules. Decoding takes the valid action with the largest key, so a
// distribution steers the search by giving promising actions keys that
// tend to be large.
type KeyDist interface {
	Keys(obs *env.Observation, cands []env.Candidate, rng *rand.Rand) ([]float64, error)
}

// UniformKeys draws every key from the uniform distribution on [0, 1):
// BRKGA's default, under which every valid action is equally likely.
type UniformKeys struct{}

// Keys implements KeyDist.
func (UniformKeys) Keys(obs *env.Observation, _ []env.Candidate, rng *rand.Rand) ([]float64, error) {
	k := make([]float64, len(obs.Mask))
	for i := range k {
		k[i] = rng.Float64()
	}
	return k, nil
}

// errNoValidAction reports an observation whose mask allows nothing.
var errNoValidAction = errors.New("the mask allows no action")

// priorityAction returns the valid action with the largest key (the first
// of equal keys).
func priorityAction(obs *env.Observation, keys []float64) (int, error) {
	best := -1
	for a, ok := range obs.Mask {
		if ok && (best < 0 || keys[a] > keys[best]) {
			best = a
		}
	}
	if best < 0 {
		return 0, errNoValidAction
	}
	return best, nil
}
