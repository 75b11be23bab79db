// Package plots provides PNG charts of a training run from its metrics
// (package ppo's metrics.jsonl): episodic return, speedup per episode and
// best so far, and a heat map of rule applications per episode (rules on
// the vertical axis, episodes on the horizontal, colour = times applied),
// in the manner of X-RLflow's Figure 5.
package plots
