package train

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/internal/atomicfile"
)

// traceStep is one line of a rollout trace (RolloutConfig.Trace).
type traceStep struct {
	Episode    int     `json:"episode"`
	Seed       uint64  `json:"seed"`
	Step       int     `json:"step"`
	Action     int     `json:"action"`
	Reward     float64 `json:"reward"`
	Terminated bool    `json:"terminated"`
	Truncated  bool    `json:"truncated"`
	Rule       string  `json:"rule"`
	Candidates int     `json:"candidates"`
	Shown      int     `json:"shown"`
	Nodes      int     `json:"nodes"`
	Measured   bool    `json:"measured"`
	LatencyNs  int64   `json:"latency_ns"`
	// StepNs is the wall time of the Step call.
	StepNs int64 `json:"step_ns"`
}

// traceAgent records every transition of the agent it wraps.
type traceAgent struct {
	env.Agent
	episode int
	seed    uint64
	acted   time.Time
	steps   []traceStep
}

// Act implements env.Agent, noting when the step begins.
func (a *traceAgent) Act(obs *env.Observation) (int, error) {
	act, err := a.Agent.Act(obs)
	a.acted = time.Now()
	return act, err
}

// Observe implements env.Learner.
func (a *traceAgent) Observe(t env.Transition) error {
	stepNs := time.Since(a.acted).Nanoseconds()
	if l, ok := a.Agent.(env.Learner); ok {
		if err := l.Observe(t); err != nil {
			return err
		}
	}
	a.steps = append(a.steps, traceStep{Episode: a.episode, Seed: a.seed, Step: t.Info.Step, Action: t.Action,
		Reward: t.Reward, Terminated: t.Terminated, Truncated: t.Truncated, Rule: t.Info.Rule,
		Candidates: t.Info.Candidates, Shown: t.Info.Shown, Nodes: t.Info.Nodes, Measured: t.Info.Measured,
		LatencyNs: int64(t.Info.Latency), StepNs: stepNs})
	return nil
}

// write stores the trace as JSON lines.
func (a *traceAgent) write(path string) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, s := range a.steps {
			if err := enc.Encode(s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("--trace %s: %w", path, err)
	}
	return nil
}
