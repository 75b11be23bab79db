package env

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/xrl-dev/xrl/graph"
)

// CheckOptions bounds the work Check does.
type CheckOptions struct {
	// Episodes to run (default 2), each replayed once with the same seed.
	Episodes int
	// MaxSteps caps each episode (default 15; 0 keeps the default).
	MaxSteps int
	// Seed of the first episode (default 1).
	Seed uint64
	// Validate also runs graph.Validate on every shown candidate
	// (slower; default true).
	SkipValidate bool
}

// Check verifies that e honours the environment contract: Reset and Step
// return well-formed observations (graph tensors consistent, mask true
// exactly for the shown candidates and No-Op), rewards are finite, Info is
// consistent, candidates are valid graphs different from the current one,
// invalid actions are rejected, Step after the end requires Reset, and the
// same seed with the same actions reproduces the same observations and
// rewards (which requires a deterministic latency model, e.g. the cost
// model with its cache shared between the two runs). Actions are chosen by
// a seeded random agent that avoids No-Op until MaxSteps.
func Check(e *Env, opts CheckOptions) error {
	if opts.Episodes <= 0 {
		opts.Episodes = 2
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 15
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if _, _, _, _, _, err := e.Step(0); err == nil {
		return fmt.Errorf("check: Step before Reset did not fail")
	}
	for k := 0; k < opts.Episodes; k++ {
		seed := opts.Seed + uint64(k)
		first, err := checkEpisode(e, seed, nil, opts)
		if err != nil {
			return fmt.Errorf("check: episode seed %d: %w", seed, err)
		}
		second, err := checkEpisode(e, seed, first.actions, opts)
		if err != nil {
			return fmt.Errorf("check: replay of seed %d: %w", seed, err)
		}
		if len(first.rewards) != len(second.rewards) {
			return fmt.Errorf("check: replay of seed %d took %d steps, first run %d", seed, len(second.rewards), len(first.rewards))
		}
		for i := range first.rewards {
			if first.rewards[i] != second.rewards[i] {
				return fmt.Errorf("check: replay of seed %d: step %d reward %v, first run %v", seed, i+1, second.rewards[i], first.rewards[i])
			}
			if first.obsKeys[i] != second.obsKeys[i] {
				return fmt.Errorf("check: replay of seed %d: step %d observation differs", seed, i+1)
			}
		}
	}
	return nil
}

type trace struct {
	actions []int
	rewards []float64
	obsKeys []string
}

func checkEpisode(e *Env, seed uint64, replay []int, opts CheckOptions) (*trace, error) {
	obs, info, err := e.Reset(seed)
	if err != nil {
		return nil, err
	}
	if err := checkObs(e, obs, info, opts); err != nil {
		return nil, fmt.Errorf("after Reset: %w", err)
	}
	if info.Step != 0 || info.InitialLatency <= 0 {
		return nil, fmt.Errorf("after Reset: Info %+v", info)
	}
	// A masked action is rejected without changing the state.
	bad := -1
	if len(obs.Candidates) < e.MaxCandidates() {
		bad = len(obs.Candidates)
	}
	if _, _, _, _, _, err := e.Step(bad); err == nil {
		return nil, fmt.Errorf("action %d (a masked one) was accepted", bad)
	}
	agent := NewRandomAgent(seed * 7919)
	tr := &trace{}
	for step := 0; ; step++ {
		var act int
		switch {
		case replay != nil:
			act = replay[step]
		case (step+1 >= opts.MaxSteps || len(obs.Candidates) == 0) && obs.Mask[obs.NoOp()]:
			act = obs.NoOp()
		default:
			for act = obs.NoOp(); act == obs.NoOp(); {
				if act, err = agent.Act(obs); err != nil {
					return nil, fmt.Errorf("step %d: %w", step+1, err)
				}
			}
		}
		next, r, term, trunc, info, err := e.Step(act)
		if err != nil {
			return nil, fmt.Errorf("step %d action %d: %w", step+1, act, err)
		}
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return nil, fmt.Errorf("step %d: reward %v", step+1, r)
		}
		if info.Step != step+1 {
			return nil, fmt.Errorf("step %d: Info.Step = %d", step+1, info.Step)
		}
		if term && trunc {
			return nil, fmt.Errorf("step %d: both terminated and truncated", step+1)
		}
		if (act == obs.NoOp()) != info.NoOp || (info.NoOp && !term) {
			return nil, fmt.Errorf("step %d: No-Op handling inconsistent (action %d, info %+v, terminated %v)", step+1, act, info, term)
		}
		if (term || trunc) && !info.Measured {
			return nil, fmt.Errorf("step %d: episode ended without a latency measurement", step+1)
		}
		if !info.NoOp {
			if err := checkObs(e, next, info, opts); err != nil {
				return nil, fmt.Errorf("step %d: %w", step+1, err)
			}
		}
		tr.actions = append(tr.actions, act)
		tr.rewards = append(tr.rewards, r)
		tr.obsKeys = append(tr.obsKeys, obsKey(next))
		obs = next
		if term || trunc {
			if _, _, _, _, _, err := e.Step(0); err == nil {
				return nil, fmt.Errorf("Step after the episode ended did not fail")
			}
			return tr, nil
		}
	}
}

func checkObs(e *Env, obs *Observation, info Info, opts CheckOptions) error {
	if obs == nil || obs.Current == nil {
		return fmt.Errorf("nil observation")
	}
	if err := obs.Current.Check(); err != nil {
		return fmt.Errorf("current graph: %w", err)
	}
	if len(obs.Mask) != e.MaxCandidates()+1 {
		return fmt.Errorf("mask has %d entries, want %d", len(obs.Mask), e.MaxCandidates()+1)
	}
	if len(obs.Candidates) > e.MaxCandidates() || len(obs.Candidates) != info.Shown || info.Shown > info.Candidates {
		return fmt.Errorf("%d candidates observed, Info says %d shown of %d", len(obs.Candidates), info.Shown, info.Candidates)
	}
	for i, ok := range obs.Mask {
		want := i < len(obs.Candidates) || i == e.MaxCandidates() && (info.Step >= e.cfg.NoOpAfter || len(obs.Candidates) == 0)
		if ok != want {
			return fmt.Errorf("mask[%d] = %v, want %v", i, ok, want)
		}
	}
	cands := e.Candidates()
	if len(cands) != len(obs.Candidates) {
		return fmt.Errorf("Env.Candidates has %d entries, observation %d", len(cands), len(obs.Candidates))
	}
	cur := e.Graph().CanonicalHash()
	seen := map[string]bool{}
	for i, c := range obs.Candidates {
		if err := c.Check(); err != nil {
			return fmt.Errorf("candidate %d: %w", i, err)
		}
		h := cands[i].Graph.CanonicalHash() // recomputed: the check must not trust Candidate.Hash
		if cands[i].Hash != (graph.Hash{}) && cands[i].Hash != h {
			return fmt.Errorf("candidate %d (rule %s) carries a wrong hash", i, cands[i].Rule)
		}
		if h == cur {
			return fmt.Errorf("candidate %d (rule %s) equals the current graph", i, cands[i].Rule)
		}
		if seen[h.String()] {
			return fmt.Errorf("candidate %d (rule %s) duplicates an earlier one", i, cands[i].Rule)
		}
		seen[h.String()] = true
		if !opts.SkipValidate {
			if err := cands[i].Graph.Validate(); err != nil {
				return fmt.Errorf("candidate %d (rule %s) is not a valid graph: %w", i, cands[i].Rule, err)
			}
		}
	}
	return nil
}

// obsKey digests an observation for the determinism check.
func obsKey(o *Observation) string {
	h := fnv.New64a()
	var buf [4]byte
	put := func(v uint32) {
		binary.LittleEndian.PutUint32(buf[:], v)
		h.Write(buf[:])
	}
	for _, t := range append([]*GraphTensor{o.Current}, o.Candidates...) {
		put(uint32(len(t.NodeClass)))
		for _, c := range t.NodeClass {
			put(uint32(c))
		}
		put(uint32(len(t.Senders)))
		for i := range t.Senders {
			put(uint32(t.Senders[i]))
			put(uint32(t.Receivers[i]))
		}
		for _, f := range t.EdgeFeat {
			put(math.Float32bits(f))
		}
	}
	return fmt.Sprintf("%x", h.Sum64())
}
