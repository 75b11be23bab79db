package env

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/nodecost"
	"github.com/xrl-dev/xrl/rewrite"
)

// Version is the environment's version; see the Version History in Env's
// documentation.
const Version = 2

// Defaults from X-RLflow (shared/FACTS.md section 1).
const (
	DefaultMaxCandidates = 200
	DefaultHorizon       = 100
	DefaultFeedbackEvery = 5
)

// Config holds an environment's settings.
type Config struct {
	// Model is the starting model; its graph must have static, inferred
	// shapes (graph.Graph.BindShapes). It is not modified.
	Model *graph.Model
	// Rewriter proposes the candidate rewrites of each graph.
	Rewriter Rewriter
	// Latency measures (or estimates) end-to-end latency. Share one value
	// between environments to share its cache. Under the memory
	// objectives it is measure.MemoryObjective or measure.Combined, whose
	// scores rank graphs but are not times.
	Latency measure.LatencyModel
	// MaxCandidates caps the candidates shown per step (default 200).
	MaxCandidates int
	// Horizon is the step limit after which an episode is truncated
	// (default 100).
	Horizon int
	// FeedbackEvery is N: latency is measured every N steps and at the end
	// of an episode (default 5).
	FeedbackEvery int
	// Reward computes rewards (default DefaultReward, the paper's Eq. 2).
	Reward RewardFunc
	// CandidateGains scores every shown candidate with Latency and shows
	// the result in the candidate's global attribute: GainFeature of its
	// gain over the current graph.
	CandidateGains bool
	// NoOpAfter masks the No-Op action for the first NoOpAfter steps of
	// an episode (while candidates exist), so every episode applies at
	// least that many rewrites (default 0: No-Op is always valid).
	NoOpAfter int
	// NodeTimes, when set, is Latency's per-node view (Latency is the sum
	// of its node times over the nodes not computed from constants only:
	// the cost model): CandidateGains then scores each candidate from what
	// its rewrite changed (package nodecost), with the same results.
	NodeTimes *nodecost.Timer
	// DeferChecks, with a Rewriter that is a rewrite.DeferredRewriter,
	// leaves the rewriter's costly checks of candidates (the execution of
	// whole-graph passes' results) to Step, which runs only the check of
	// the candidate it applies (all of them when no candidate is known
	// good, since the episode ends without candidates). While every check
	// succeeds, episodes are those without DeferChecks. When the chosen
	// candidate's check fails, Step returns ErrRejected after rebuilding
	// the observation as without DeferChecks (the rejected candidate left
	// out, the capping drawn again from the same random state), and the
	// agent acts again on Observation(); Rollout does this. A failing
	// candidate that is not chosen is shown, and counts in the capping
	// and in Info.Candidates, where without DeferChecks it is not.
	DeferChecks bool
}

// Info describes a step (or a reset) beyond the observation and reward.
type Info struct {
	// Step is the number of steps taken in the episode (0 after Reset).
	Step int
	// Rule is the rule applied by the step ("" after Reset and for No-Op).
	Rule string
	// NoOp reports that the step chose the No-Op action.
	NoOp bool
	// Candidates is the number of candidates of the new current graph
	// before capping; Shown how many the observation holds (the rest were
	// dropped by the capping rule, see Env).
	Candidates, Shown int
	// RuleCandidates counts the new graph's candidates per rule.
	RuleCandidates map[string]int
	// Measured reports whether Latency was measured at this step.
	Measured bool
	// Latency is the current graph's latency when Measured.
	Latency time.Duration
	// InitialLatency is RT_0, the starting graph's latency.
	InitialLatency time.Duration
	// BestLatency is the lowest latency measured in this episode.
	BestLatency time.Duration
	// Nodes is the current graph's node count.
	Nodes int
	// CandidateTime is the time spent generating and encoding candidates.
	CandidateTime time.Duration
}

// Speedup returns InitialLatency / BestLatency (1 before any improvement).
func (i Info) Speedup() float64 {
	if i.BestLatency <= 0 {
		return 1
	}
	return float64(i.InitialLatency) / float64(i.BestLatency)
}

// Errors returned by Step.
var (
	ErrNeedsReset    = errors.New("env: Step called before Reset or after the episode ended")
	ErrInvalidAction = errors.New("env: invalid action")
	// ErrRejected reports (with Config.DeferChecks) that the chosen
	// candidate failed its check; the episode goes on from the same
	// graph with Observation().
	ErrRejected = errors.New("env: the chosen candidate failed its check")
)

// Env is the graph-rewriting environment of X-RLflow.
//
// # Description
//
// The agent optimises a tensor graph by applying verified rewrites one at
// a time. At every step the environment matches every rewrite rule at
// every location of the current graph; each match yields a candidate
// graph. The agent picks one candidate (which becomes the current graph)
// or No-Op (which ends the episode).
//
// # Action Space
//
// Discrete(MaxCandidates+1). Action i < len(Observation.Candidates)
// applies candidate i; action MaxCandidates is No-Op (masked during the
// first Config.NoOpAfter steps while candidates exist). Other actions are
// invalid (Observation.Mask is false for them) and Step returns
// ErrInvalidAction.
//
// # Observation Space
//
// An *Observation: the GraphTensor of the current graph, one GraphTensor
// per candidate (at most MaxCandidates) and the action mask. Node features
// are op-class indices (one-hot over OpClasses), edge features the tensor
// shape left-padded to rank 4 and divided by ShapeScale, and a global
// attribute (zero; with Config.CandidateGains, a candidate's holds
// GainFeature of its latency gain over the current graph). When a graph
// has more than MaxCandidates candidates,
// MaxCandidates of them are chosen uniformly at random without replacement
// by the episode's random stream (seeded by Reset) and kept in the
// rewriter's order; Info.Candidates and Info.Shown report the counts.
// A candidate's graph tensor is the current graph's with the rewritten
// nodes encoded anew and the others renumbered (a rewrite renumbers the
// nodes after the rewritten region); only the shown candidates are built
// and encoded (see docs/perf.md for the measured step rate).
//
// # Rewards
//
// Every FeedbackEvery steps and at the end of an episode the current
// graph's end-to-end latency is measured and the reward is
// (RT_prev - RT_now) / RT_0 * 100, where RT_prev is the previous
// measurement and RT_0 the starting graph's latency (X-RLflow Eq. 2);
// other steps get UnmeasuredReward (0.1). Config.Reward replaces this.
// Latencies are cached by the graph's canonical hash.
//
// # Episode End
//
// Terminated when the agent chooses No-Op or the new graph has no
// candidates; truncated after Horizon steps. Call Reset to start again.
//
// # Arguments
//
// See Config: Model, Rewriter, Latency, MaxCandidates (200), Horizon
// (100), FeedbackEvery (5), Reward.
//
// # Version History
//
//   - v1: initial version.
//   - v2: Config.CandidateGains and Config.NoOpAfter (off by default,
//     which behaves as v1).
//   - v2 (unchanged episodes): Config.DeferChecks, off by default; with it
//     an episode is the same while every check succeeds.
type Env struct {
	cfg Config
	src *rand.PCG
	rng *rand.Rand
	// capSrc is src before the last capping of candidates, restored
	// when a deferred check fails and the candidates are drawn again.
	capSrc rand.PCG
	// refreshInfo is the Info of the last refresh, kept to redo it.
	refreshInfo Info
	done        bool
	step        int

	cur      *graph.Graph
	curHash  graph.Hash // cur's canonical hash
	shown    []Candidate
	obs      *Observation
	initial  time.Duration
	previous time.Duration
	best     time.Duration
	bestG    *graph.Graph
	applied  []string
}

// New returns an environment; call Reset before Step.
func New(cfg Config) (*Env, error) {
	if cfg.Model == nil || cfg.Model.Graph == nil {
		return nil, errors.New("env: Config.Model is required")
	}
	if cfg.Rewriter == nil {
		return nil, errors.New("env: Config.Rewriter is required")
	}
	if cfg.Latency == nil {
		return nil, errors.New("env: Config.Latency is required")
	}
	if cfg.MaxCandidates == 0 {
		cfg.MaxCandidates = DefaultMaxCandidates
	}
	if cfg.Horizon == 0 {
		cfg.Horizon = DefaultHorizon
	}
	if cfg.FeedbackEvery == 0 {
		cfg.FeedbackEvery = DefaultFeedbackEvery
	}
	if cfg.NoOpAfter < 0 {
		return nil, fmt.Errorf("env: NoOpAfter must not be negative (got %d)", cfg.NoOpAfter)
	}
	if cfg.MaxCandidates < 1 || cfg.Horizon < 1 || cfg.FeedbackEvery < 1 {
		return nil, fmt.Errorf("env: MaxCandidates, Horizon and FeedbackEvery must be positive (got %d, %d, %d)",
			cfg.MaxCandidates, cfg.Horizon, cfg.FeedbackEvery)
	}
	if cfg.Reward == nil {
		cfg.Reward = DefaultReward
	}
	for _, v := range cfg.Model.Graph.Inputs {
		if _, err := v.StaticShape(); err != nil {
			return nil, fmt.Errorf("env: the model needs static shapes (bind them first): %w", err)
		}
	}
	return &Env{cfg: cfg, done: true}, nil
}

// Config returns the environment's settings with defaults filled in.
func (e *Env) Config() Config { return e.cfg }

// MaxCandidates returns the action-space size minus one.
func (e *Env) MaxCandidates() int { return e.cfg.MaxCandidates }

// Graph returns the current graph (do not modify it).
func (e *Env) Graph() *graph.Graph { return e.cur }

// Candidates returns the candidates shown in the last observation, in
// action order (do not modify them).
func (e *Env) Candidates() []Candidate { return e.shown }

// Best returns the graph with the lowest measured latency so far in the
// episode and that latency.
func (e *Env) Best() (*graph.Graph, time.Duration) { return e.bestG, e.best }

// Steps returns the number of steps taken in the episode.
func (e *Env) Steps() int { return e.step }

// Applied returns the rules applied so far in the episode, in order.
func (e *Env) Applied() []string { return append([]string(nil), e.applied...) }

// ModelOf returns the configured model's metadata around graph g, for
// measurement and export.
func (e *Env) ModelOf(g *graph.Graph) *graph.Model {
	m := *e.cfg.Model
	m.Graph = g
	return &m
}

// Latency returns the latency of g under the environment's latency model.
func (e *Env) Latency(g *graph.Graph) (time.Duration, error) {
	return e.latencyOf(g, graph.Hash{})
}

// latencyOf is Latency for a graph whose canonical hash is h (zero:
// unknown); a latency model that caches by hash is given it.
func (e *Env) latencyOf(g *graph.Graph, h graph.Hash) (time.Duration, error) {
	st, err := measure.LatencyKnownHash(e.cfg.Latency, e.ModelOf(g), h)
	if err != nil {
		return 0, err
	}
	return st.Median, nil
}

// Reset starts an episode from the configured model. The seed drives the
// capping of candidate lists; the same seed gives the same episode for the
// same actions.
func (e *Env) Reset(seed uint64) (*Observation, Info, error) {
	e.src = rand.NewPCG(seed, seed^0x5851f42d4c957f2d)
	e.rng = rand.New(e.src)
	e.cur = e.cfg.Model.Graph
	e.curHash = e.cur.CanonicalHash()
	e.step = 0
	e.applied = nil
	e.done = true
	lat, err := e.latencyOf(e.cur, e.curHash)
	if err != nil {
		return nil, Info{}, fmt.Errorf("env: measuring the initial graph: %w", err)
	}
	e.initial, e.previous, e.best, e.bestG = lat, lat, lat, e.cur
	info := Info{Measured: true, Latency: lat, InitialLatency: lat, BestLatency: lat}
	if err := e.refresh(&info, e.cfg.DeferChecks); err != nil {
		return nil, Info{}, err
	}
	e.done = false
	return e.obs, info, nil
}

// Observation returns the last observation (after ErrRejected, the one
// to act on again).
func (e *Env) Observation() *Observation { return e.obs }

// refresh generates and encodes the current graph's candidates, leaving
// their checks to Step when deferred and the rewriter can.
func (e *Env) refresh(info *Info, deferred bool) error {
	t0 := time.Now()
	all, err := rewrite.CandidatesOfLazy(e.cfg.Rewriter, e.cur, deferred)
	if deferred && err == nil && len(all) > 0 && !slices.ContainsFunc(all, func(c Candidate) bool { return c.Verify == nil }) {
		// Only candidates still to check: whether any remains decides
		// the episode's end and No-Op's mask, so check them now.
		all, err = rewrite.CandidatesOfLazy(e.cfg.Rewriter, e.cur, false)
	}
	if err != nil {
		return fmt.Errorf("env: generating candidates: %w", err)
	}
	e.capSrc = *e.src
	info.Candidates = len(all)
	info.RuleCandidates = make(map[string]int)
	for _, c := range all {
		info.RuleCandidates[c.Rule]++
	}
	e.shown = e.capCandidates(all)
	// Scored before they are built: a lazy candidate's latency comes from
	// its change (nodecost.Base.Latency), which a built one no longer
	// offers, where a built one's is a walk over the whole graph (on the
	// 50,000-node residual MLP, 32 walks took most of a step).
	var gains []float64
	if e.cfg.CandidateGains {
		if gains, err = e.gainsOf(e.shown); err != nil {
			return err
		}
	}
	// Only the shown candidates are built: a large graph has as many
	// candidates as it has places to rewrite.
	inParallel(len(e.shown), func(i int) { e.shown[i].Graph = e.shown[i].Materialize() })
	info.Shown = len(e.shown)
	info.Nodes = len(e.cur.Nodes)
	e.obs = e.encode()
	for i, g := range gains {
		e.obs.Candidates[i].Global[0] = GainFeature(g)
	}
	info.CandidateTime = time.Since(t0)
	info.Step = e.step
	e.refreshInfo = *info
	return nil
}

// reject handles a chosen candidate whose deferred check failed: the
// candidates are generated again with every check run and capped with
// the same random state, so the observation is the one the environment
// shows without Config.DeferChecks.
func (e *Env) reject(action int, cause error) error {
	rule := e.shown[action].Rule
	*e.src = e.capSrc
	info := e.refreshInfo
	if err := e.refresh(&info, false); err != nil {
		e.done = true
		return err
	}
	return fmt.Errorf("%w: candidate %d (%s): %v", ErrRejected, action, rule, cause)
}

// capCandidates keeps at most MaxCandidates, chosen uniformly at random
// without replacement, in their original order.
func (e *Env) capCandidates(all []Candidate) []Candidate {
	k := e.cfg.MaxCandidates
	if len(all) <= k {
		return all
	}
	idx := e.rng.Perm(len(all))[:k]
	sort.Ints(idx)
	out := make([]Candidate, k)
	for i, j := range idx {
		out[i] = all[j]
	}
	return out
}

// encode builds the observation, encoding candidates in parallel from the
// current graph's encoding.
func (e *Env) encode() *Observation {
	base := encodeBase(e.cur)
	obs := &Observation{
		Current:    base.t,
		Candidates: make([]*GraphTensor, len(e.shown)),
		Mask:       make([]bool, e.cfg.MaxCandidates+1),
	}
	inParallel(len(e.shown), func(i int) { obs.Candidates[i] = encodeCandidate(base, e.shown[i]) })
	for i := range e.shown {
		obs.Mask[i] = true
	}
	obs.Mask[e.cfg.MaxCandidates] = e.step >= e.cfg.NoOpAfter || len(e.shown) == 0
	return obs
}

// Step applies action and returns the new observation, the reward, whether
// the episode terminated or was truncated, and step information.
func (e *Env) Step(action int) (*Observation, float64, bool, bool, Info, error) {
	if e.done {
		return nil, 0, false, false, Info{}, ErrNeedsReset
	}
	noop := action == e.cfg.MaxCandidates
	if noop && !e.obs.Mask[action] {
		return nil, 0, false, false, Info{}, fmt.Errorf("%w %d: No-Op is masked for the first %d steps", ErrInvalidAction, action, e.cfg.NoOpAfter)
	}
	if !noop && (action < 0 || action >= len(e.shown)) {
		return nil, 0, false, false, Info{}, fmt.Errorf("%w %d: valid actions are 0..%d and %d (No-Op)",
			ErrInvalidAction, action, len(e.shown)-1, e.cfg.MaxCandidates)
	}
	if !noop {
		if verify := e.shown[action].Verify; verify != nil {
			if err := verify(); err != nil {
				return nil, 0, false, false, Info{}, e.reject(action, err)
			}
		}
	}
	e.step++
	info := Info{NoOp: noop, InitialLatency: e.initial}
	terminated := noop
	if !noop {
		c := e.shown[action]
		e.cur, e.curHash = c.Graph, c.GraphHash()
		info.Rule = c.Rule
		e.applied = append(e.applied, c.Rule)
		if err := e.refresh(&info, e.cfg.DeferChecks); err != nil {
			e.done = true
			return nil, 0, false, false, Info{}, err
		}
		if len(e.shown) == 0 {
			terminated = true
		}
	} else {
		info.Candidates, info.Shown = len(e.shown), len(e.shown)
		info.Nodes = len(e.cur.Nodes)
		info.Step = e.step
	}
	truncated := !terminated && e.step >= e.cfg.Horizon
	measured := e.step%e.cfg.FeedbackEvery == 0 || terminated || truncated
	in := RewardInput{Step: e.step, Measured: measured, Initial: e.initial, Previous: e.previous,
		Terminated: terminated, Truncated: truncated}
	if measured {
		lat, err := e.latencyOf(e.cur, e.curHash)
		if err != nil {
			e.done = true
			return nil, 0, false, false, Info{}, fmt.Errorf("env: measuring step %d: %w", e.step, err)
		}
		in.Current = lat
		info.Measured, info.Latency = true, lat
		if lat < e.best {
			e.best, e.bestG = lat, e.cur
		}
	}
	reward := e.cfg.Reward(in)
	if measured {
		e.previous = in.Current
	}
	info.BestLatency = e.best
	if terminated || truncated {
		e.done = true
	}
	return e.obs, reward, terminated, truncated, info, nil
}
