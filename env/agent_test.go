package env

import (
	"errors"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// failingLatency fails every query.
type failingLatency struct{}

var errNoLatency = errors.New("no latency today")

func (failingLatency) Name() string { return "failing" }
func (failingLatency) Latency(*graph.Model) (measure.Stats, error) {
	return measure.Stats{}, errNoLatency
}

// failingLearner acts randomly and fails to observe.
type failingLearner struct{ *RandomAgent }

func (failingLearner) Observe(Transition) error { return errNoLatency }

func TestAgentErrorsStopTheRollout(t *testing.T) {
	cases := []struct {
		name  string
		agent func(e *Env) Agent
		want  string
	}{
		{"greedy agent's latency error", func(e *Env) Agent { return &GreedyAgent{Env: e, Latency: failingLatency{}} }, "choosing an action"},
		{"learner's observe error", func(*Env) Agent { return failingLearner{NewRandomAgent(1)} }, "step 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t, Config{})
			_, err := Rollout(e, tc.agent(e), 1)
			if !errors.Is(err, errNoLatency) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one wrapping %v and mentioning %q", err, errNoLatency, tc.want)
			}
		})
	}
}
