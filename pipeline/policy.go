package pipeline

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/ppo"
	"github.com/xrl-dev/xrl/ppo/builtin"
	"github.com/xrl-dev/xrl/search"
)

// PolicyError reports a policy checkpoint that could not be loaded.
type PolicyError struct {
	Path string
	Err  error
}

func (e *PolicyError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }

// Unwrap returns the underlying error.
func (e *PolicyError) Unwrap() error { return e.Err }

// LoadPolicy reads the policy named by `--agent`: builtin.Name selects
// the agent embedded in the binary (with its training's horizon and
// candidate cap), anything else is a checkpoint file (ppo.LoadPolicy).
func LoadPolicy(agent string) (*gat.Net, ppo.Config, error) {
	if agent == builtin.Name {
		net, prov, err := builtin.Load()
		if err != nil {
			return nil, ppo.Config{}, &PolicyError{Path: agent, Err: err}
		}
		cfg := ppo.DefaultConfig()
		cfg.Horizon, cfg.MaxCandidates, cfg.Seed = prov.Horizon, prov.MaxCandidates, prov.Seed
		cfg.CandidateGains, cfg.NoOpAfter = prov.CandidateGains, prov.NoOpAfter
		return net, cfg, nil
	}
	net, cfg, err := ppo.LoadPolicy(agent)
	if err != nil {
		return nil, ppo.Config{}, &PolicyError{Path: agent, Err: err}
	}
	return net, cfg, nil
}

// PolicyOptions configures RunPolicy.
type PolicyOptions struct {
	// Horizon and MaxCandidates are the environment settings the policy
	// was trained with.
	Horizon, MaxCandidates int
	// CandidateGains is the env.Config.CandidateGains it was trained with.
	CandidateGains bool
	// NoOpAfter is the env.Config.NoOpAfter it was trained with.
	NoOpAfter int
	// Samples is the number of sampled rollouts after the greedy one.
	Samples int
	// Seed seeds rollout i with Seed+i.
	Seed uint64
	// Deadline, when not zero, stops starting sampled rollouts after it.
	Deadline time.Time
	// Patience, when positive, ends a rollout (as a No-Op) after that many
	// steps in a row without a new best graph.
	Patience int
}

// PolicyResult is what RunPolicy did.
type PolicyResult struct {
	// Best is the rollout whose best graph was fastest.
	Best            env.Episode
	Rollouts, Steps int
	Elapsed         time.Duration
}

// RunPolicy rewrites s.Model with a trained policy: one greedy rollout
// (the most probable action at every step) and opts.Samples sampled ones,
// printing a line a rollout to w. Latency is measured after every step so
// that the best graph along each rollout is found; the policy does not see
// rewards, so this does not change its choices.
func (s *Start) RunPolicy(w io.Writer, net *gat.Net, lm measure.LatencyModel, opts PolicyOptions) (*PolicyResult, error) {
	e, err := s.policyEnv(lm, opts)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	res := &PolicyResult{}
	for i := 0; i <= opts.Samples; i++ {
		greedy := i == 0
		if i > 0 && !opts.Deadline.IsZero() && time.Now().After(opts.Deadline) {
			break
		}
		agent := &patientAgent{inner: gat.NewPolicyAgent(net, opts.Seed+uint64(i), greedy), env: e, patience: opts.Patience}
		ep, err := env.Rollout(e, agent, opts.Seed+uint64(i))
		if err != nil {
			return nil, fmt.Errorf("rollout %d: %w", i, err)
		}
		if agent.stopped {
			ep.StopReason = fmt.Sprintf("no new best in %d steps", opts.Patience)
		}
		res.Rollouts, res.Steps = res.Rollouts+1, res.Steps+ep.Steps
		if i == 0 || ep.BestLatency < res.Best.BestLatency {
			res.Best = ep
		}
		kind := "greedy"
		if !greedy {
			kind = fmt.Sprintf("sample %d", i)
		}
		fmt.Fprintf(w, "%s rollout: %d steps (%s), best %s (%.3fx)\n", kind, ep.Steps, ep.StopReason,
			scoreString(lm, e.ModelOf(ep.Best), ep.BestLatency), ep.Speedup())
	}
	res.Elapsed = time.Since(t0)
	fmt.Fprintf(w, "agent: %d rollouts, %d steps, %v\n", res.Rollouts, res.Steps, res.Elapsed.Round(time.Millisecond))
	return res, nil
}

// policyEnv returns the environment RunPolicy's rollouts run in.
func (s *Start) policyEnv(lm measure.LatencyModel, opts PolicyOptions) (*env.Env, error) {
	return env.New(env.Config{Model: s.Model, Rewriter: s.Engine, Latency: lm, NodeTimes: nodeTimes(lm),
		Horizon: opts.Horizon, MaxCandidates: opts.MaxCandidates, FeedbackEvery: 1, CandidateGains: opts.CandidateGains, NoOpAfter: opts.NoOpAfter,
		DeferChecks: true})
}

// CountRules formats rule names with their counts, in order of first use:
// "conv-bn-fold x3, relu-concat".
func CountRules(applied []string) string { return formatRuleCounts(ruleCounts(applied)) }

// ruleCounts counts how often each rule of applied was applied, in order
// of first use.
func ruleCounts(applied []string) []search.RuleStat {
	var out []search.RuleStat
	at := map[string]int{}
	for _, r := range applied {
		i, ok := at[r]
		if !ok {
			i = len(out)
			at[r] = i
			out = append(out, search.RuleStat{Name: r})
		}
		out[i].Applied++
	}
	return out
}

// formatRuleCounts formats counts as CountRules does.
func formatRuleCounts(counts []search.RuleStat) string {
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = c.Name
		if c.Applied > 1 {
			parts[i] += fmt.Sprintf(" x%d", c.Applied)
		}
	}
	return strings.Join(parts, ", ")
}

// patientAgent passes on the actions of inner until patience steps in a
// row have not lowered the environment's best latency, then chooses
// No-Op. It must be reset for every episode (a new value per rollout).
type patientAgent struct {
	inner    env.Agent
	env      *env.Env
	patience int

	best    time.Duration
	idle    int
	stopped bool
	asked   int // 1 + the step of the last count; 0 before any
}

// Act implements env.Agent.
func (a *patientAgent) Act(obs *env.Observation) (int, error) {
	if a.patience > 0 && a.asked != a.env.Steps()+1 {
		// Counted once a step: the environment asks again, at the same
		// step, when the chosen candidate fails its check.
		a.asked = a.env.Steps() + 1
		_, best := a.env.Best()
		if a.best == 0 || best < a.best {
			a.best, a.idle = best, 0
		} else {
			a.idle++
		}
	}
	if a.patience > 0 {
		if a.idle >= a.patience && obs.Mask[obs.NoOp()] {
			a.stopped = true
			return obs.NoOp(), nil
		}
	}
	return a.inner.Act(obs)
}
