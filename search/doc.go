// Package search provides non-learning graph optimisers over a rewriter and
// a latency model: greedy descent, TASO's cost-based best-first search and
// a random walk. Every run reports its stop reason, steps, time, and
// per-rule statistics.
package search
