package env

// Observation is what the agent sees at each step: the current graph and
// the candidate graphs that the valid actions lead to.
type Observation struct {
	// Current is the graph tensor of the current graph.
	Current *GraphTensor
	// Candidates holds one graph tensor per candidate rewrite, at most
	// MaxCandidates. Action i < len(Candidates) applies candidate i.
	Candidates []*GraphTensor
	// Mask has MaxCandidates+1 entries: Mask[i] reports whether action i
	// is valid; the last entry is the No-Op action, which ends the episode.
	Mask []bool
}

// NoOp returns the index of the No-Op action (len(Mask)-1).
func (o *Observation) NoOp() int { return len(o.Mask) - 1 }
