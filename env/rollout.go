package env

import (
	"errors"
	"fmt"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
)

// Episode summarises one rollout.
type Episode struct {
	Seed   uint64
	Return float64
	Steps  int
	// StopReason is "no-op", "no candidates" or "horizon".
	StopReason string
	// InitialLatency and FinalLatency are the first and last measured
	// latencies; BestLatency the lowest measured.
	InitialLatency, FinalLatency, BestLatency time.Duration
	// Best is the graph with BestLatency.
	Best *graph.Graph
	// Applied lists the rules applied in order.
	Applied []string
	Elapsed time.Duration
}

// Speedup returns InitialLatency / BestLatency.
func (ep Episode) Speedup() float64 {
	return measure.Speedup(ep.InitialLatency, ep.BestLatency)
}

// Rollout runs one episode of agent a in e from Reset(seed). A Learner
// agent is told every transition.
func Rollout(e *Env, a Agent, seed uint64) (Episode, error) {
	start := time.Now()
	obs, info, err := e.Reset(seed)
	if err != nil {
		return Episode{}, err
	}
	ep := Episode{Seed: seed, InitialLatency: info.InitialLatency, FinalLatency: info.InitialLatency}
	learner, _ := a.(Learner)
	for {
		act, err := a.Act(obs)
		if err != nil {
			return ep, fmt.Errorf("episode seed %d, step %d: choosing an action: %w", seed, ep.Steps+1, err)
		}
		next, r, term, trunc, info, err := e.Step(act)
		if errors.Is(err, ErrRejected) {
			// The observation was rebuilt without the rejected candidate
			// (Config.DeferChecks): choose again.
			obs = e.Observation()
			continue
		}
		if err != nil {
			return ep, fmt.Errorf("episode seed %d, step %d: %w", seed, ep.Steps+1, err)
		}
		ep.Return += r
		ep.Steps++
		if info.Measured {
			ep.FinalLatency = info.Latency
		}
		if learner != nil {
			if err := learner.Observe(Transition{Obs: obs, Action: act, Reward: r, Next: next, Terminated: term, Truncated: trunc, Info: info}); err != nil {
				return ep, fmt.Errorf("episode seed %d, step %d: %w", seed, ep.Steps, err)
			}
		}
		obs = next
		if term || trunc {
			switch {
			case info.NoOp:
				ep.StopReason = "no-op"
			case term:
				ep.StopReason = "no candidates"
			default:
				ep.StopReason = "horizon"
			}
			break
		}
	}
	ep.Best, ep.BestLatency = e.Best()
	ep.Applied = e.Applied()
	ep.Elapsed = time.Since(start)
	return ep, nil
}
