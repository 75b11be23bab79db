// Package nodecost provides the scoring of lazy rewrite candidates under a
// latency model that is a sum of per-node times (measure.CostModel): a
// candidate's latency is its base graph's, less the times of the nodes
// its rewrite removed or replaced, plus those of the nodes it added
// (rewrite.Candidate.Change). Searches and the environment use it so that
// scoring the candidates of a 50,000-node graph costs what the rewrites
// change, not the graph's size per candidate.
package nodecost
