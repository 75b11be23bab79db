package env

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/xrl-dev/xrl/graph"

	"github.com/xrl-dev/xrl/measure"
)

// Agent chooses actions. Agents are built on the public Env API only.
type Agent interface {
	// Act returns an action valid under obs.Mask, or an error when the
	// agent cannot choose one (Rollout then stops the episode).
	Act(obs *Observation) (int, error)
}

// Learner is implemented by agents that learn from experience; Rollout
// calls Observe after every step.
type Learner interface {
	Agent
	// Observe reports the outcome of the last action; an error stops the
	// episode.
	Observe(t Transition) error
}

// Transition is one step of experience.
type Transition struct {
	Obs                   *Observation
	Action                int
	Reward                float64
	Next                  *Observation
	Terminated, Truncated bool
	Info                  Info
}

// RandomAgent picks uniformly among the valid actions (No-Op included).
type RandomAgent struct {
	rng *rand.Rand
}

// NewRandomAgent returns a seeded random agent.
func NewRandomAgent(seed uint64) *RandomAgent {
	return &RandomAgent{rng: rand.New(rand.NewPCG(seed, 0xda3e39cb94b95bdb))}
}

// Act implements Agent.
func (a *RandomAgent) Act(obs *Observation) (int, error) {
	valid := make([]int, 0, len(obs.Candidates)+1)
	for i, ok := range obs.Mask {
		if ok {
			valid = append(valid, i)
		}
	}
	if len(valid) == 0 {
		return 0, fmt.Errorf("random agent: the mask allows no action")
	}
	return valid[a.rng.IntN(len(valid))], nil
}

// GreedyAgent applies the candidate with the lowest latency under its own
// latency model (normally the cost model), and chooses No-Op when no
// candidate improves on the current graph.
type GreedyAgent struct {
	Env     *Env
	Latency measure.LatencyModel
}

// Act implements Agent.
func (a *GreedyAgent) Act(obs *Observation) (int, error) {
	noop := obs.NoOp()
	cur, err := a.latency(a.Env.Graph())
	if err != nil {
		return noop, fmt.Errorf("greedy agent: current graph: %w", err)
	}
	best, bestI := cur, noop
	for i, c := range a.Env.Candidates() {
		if !obs.Mask[i] {
			continue
		}
		l, err := a.latency(c.Graph)
		if err != nil {
			return noop, fmt.Errorf("greedy agent: candidate %d (%s): %w", i, c.Rule, err)
		}
		if l < best {
			best, bestI = l, i
		}
	}
	return bestI, nil
}

func (a *GreedyAgent) latency(g *graph.Graph) (time.Duration, error) {
	st, err := a.Latency.Latency(a.Env.ModelOf(g))
	return st.Median, err
}
