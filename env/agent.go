package env

import (
	"math/rand/v2"
	"time"

	"github.com/xrl-dev/xrl/graph"

	"github.com/xrl-dev/xrl/measure"
)

// Agent chooses actions. Agents are built on the public Env API only.
type Agent interface {
	// Act returns an action valid under obs.Mask.
	Act(obs *Observation) int
}

// Learner is implemented by agents that learn from experience; Rollout
// calls Observe after every step.
type Learner interface {
	Agent
	// Observe reports the outcome of the last action.
	Observe(t Transition)
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
func (a *RandomAgent) Act(obs *Observation) int {
	valid := make([]int, 0, len(obs.Candidates)+1)
	for i, ok := range obs.Mask {
		if ok {
			valid = append(valid, i)
		}
	}
	return valid[a.rng.IntN(len(valid))]
}

// GreedyAgent applies the candidate with the lowest latency under its own
// latency model (normally the cost model), and chooses No-Op when no
// candidate improves on the current graph.
type GreedyAgent struct {
	Env     *Env
	Latency measure.LatencyModel
	// Err holds the first latency error (the agent then chooses No-Op).
	Err error
}

// Act implements Agent.
func (a *GreedyAgent) Act(obs *Observation) int {
	noop := obs.NoOp()
	if a.Err != nil {
		return noop
	}
	cur, err := a.latency(a.Env.Graph())
	if err != nil {
		a.Err = err
		return noop
	}
	best, bestI := cur, noop
	for i, c := range a.Env.Candidates() {
		if !obs.Mask[i] {
			continue
		}
		l, err := a.latency(c.Graph)
		if err != nil {
			a.Err = err
			return noop
		}
		if l < best {
			best, bestI = l, i
		}
	}
	return bestI
}

func (a *GreedyAgent) latency(g *graph.Graph) (time.Duration, error) {
	st, err := a.Latency.Latency(a.Env.ModelOf(g))
	return st.Median, err
}
