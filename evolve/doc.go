// Package evolve provides population-based optimisers that drive the
// graph-rewriting environment through its public API (env.Env's Reset and
// Step), as a user's own algorithm would.
//
// BRKGA is a biased random-key genetic algorithm in the manner of REGAL:
// a chromosome holds one key in [0, 1) per decision point of an episode,
// and decoding a chromosome plays the episode, turning each key into an
// action through the inverse cumulative distribution of the valid actions.
// Without a Prior that distribution is uniform over the valid actions; with
// one (for example a trained graph-attention policy) it is the prior's, so
// the network biases every decoded chromosome, mutants included, while the
// genetic operators stay the same. A chromosome's fitness is the lowest
// latency its episode reached.
//
// With BRKGAConfig.Keys, decoding is by priority instead: a chromosome
// holds a key per action at every decision point, the step takes the
// valid action with the largest key, and fresh keys (the initial
// population and the mutants) come from a KeyDist — uniform by default,
// or per-candidate Beta distributions predicted by a network, which is
// REGAL's method (package regal).
package evolve
