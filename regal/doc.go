// Package regal provides REGAL's method on xrl's environment: a network
// that, conditioned on the graph being optimised, predicts per-candidate
// Beta distributions from which evolve.BRKGA draws the keys of its fresh
// chromosomes (the initial population and the mutants), trained as a
// contextual bandit with REINFORCE on the outcome of whole BRKGA runs over
// a set of training graphs.
//
// At every decision point of a decoded episode, each valid action (a
// candidate rewrite, or No-Op) gets a feature vector describing what the
// rewrite does to the graph (its rule, hashed; the change in the number
// of nodes of each op class and in total; the change in the tensor volume
// flowing along edges) and the graph it applies to (the share of each op
// class). A shared MLP maps it to the logits of two categorical
// distributions over a quantised mean and a quantised concentration, as
// in REGAL, which fix a Beta(α, β) for the action's key. Decoding takes
// the valid action with the largest key, so a network that learns which
// rewrites pay steers BRKGA's search without fixing its choices.
//
// Training (Train) plays BRKGA on each training graph with keys drawn by
// the network (sampling the quantised parameters) and with uniform keys,
// at the same budget and seed, and rewards the network with
// -best_network/best_uniform (REGAL's reward: above -1 when the network
// helped). The gradient of the log-probabilities of every quantised choice
// made during the run is scaled by the reward minus a per-graph running
// baseline, divided by the graph's running mean absolute deviation (under
// a deterministic cost model BRKGA's outcomes on one graph differ by a
// fraction of a percent, and the raw differences would give no gradient).
//
// The network reads only env.Observation and env.Candidate values: it is
// written against the public environment API, as a user's own algorithm
// would be. It does not pass messages along the graph's edges (REGAL's
// T = 0 ablation); each candidate is described by its effect on the graph.
package regal
