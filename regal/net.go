package regal

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat/nn"
)

// Config is the network's shape.
type Config struct {
	// Hidden lists the widths of the MLP's hidden layers [32, 32].
	Hidden []int `json:"hidden"`
	// Seed initialises the weights.
	Seed uint64 `json:"seed"`
	// Features is the input width (FeatureDim when the network was
	// built); a checkpoint from a build with other op classes is refused.
	Features int `json:"features"`
}

// outputs is the width of the MLP's output: mean logits, then
// concentration logits.
func outputs() int { return MeanBins + len(Concentrations) }

// Net predicts each action's quantised Beta distribution. Its methods
// may be called concurrently except during training updates.
type Net struct {
	cfg Config
	mlp *nn.MLP[float32]

	mu sync.Mutex // guards cache during forward passes
	c  nn.MLPCache[float32]
}

// New returns a network with weights initialised from cfg.Seed; the
// output layer starts near zero, so every quantised choice starts about
// equally likely.
func New(cfg Config) (*Net, error) {
	if cfg.Hidden == nil {
		cfg.Hidden = []int{32, 32}
	}
	if cfg.Features == 0 {
		cfg.Features = FeatureDim()
	}
	if cfg.Features != FeatureDim() {
		return nil, fmt.Errorf("regal: the network reads %d features, this build computes %d (op classes changed)", cfg.Features, FeatureDim())
	}
	for _, h := range cfg.Hidden {
		if h < 1 || h > 4096 {
			return nil, fmt.Errorf("regal: hidden width %d: want 1..4096", h)
		}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x3c6ef372fe94f82b))
	return &Net{cfg: cfg, mlp: nn.NewMLP[float32]("regal", cfg.Features, cfg.Hidden, outputs(), 0.01, rng)}, nil
}

// Config returns the network's configuration.
func (n *Net) Config() Config { c := n.cfg; c.Hidden = append([]int(nil), c.Hidden...); return c }

// Params returns the trainable tensors in checkpoint order.
func (n *Net) Params() []*nn.Param[float32] { return n.mlp.Params() }

// choice is one quantised decision: an action's features and the mean
// and concentration bins drawn for it.
type choice struct {
	x    []float32
	m, v int
}

// logProbs splits a row of logits into the log-probabilities of the mean
// and concentration bins.
func logProbs(logits []float32) (lm, lv []float32) {
	lm, lv = make([]float32, MeanBins), make([]float32, len(Concentrations))
	nn.LogSoftmax(logits[:MeanBins], lm)
	nn.LogSoftmax(logits[MeanBins:], lv)
	return lm, lv
}

// pick samples a bin from log-probabilities, or takes the most likely
// one when rng is nil.
func pick(logp []float32, rng *rand.Rand) int {
	best := 0
	if rng == nil {
		for i, l := range logp {
			if l > logp[best] {
				best = i
			}
		}
		return best
	}
	u, c := rng.Float64(), 0.0
	for i, l := range logp {
		c += math.Exp(float64(l))
		if u < c {
			return i
		}
	}
	return len(logp) - 1
}

// Dist is the network as BRKGA's key distribution (evolve.KeyDist).
type Dist struct {
	Net *Net
	// Sample draws the quantised parameters from the network's
	// distributions (training); otherwise each action takes the most
	// likely mean and concentration (use).
	Sample bool

	record []choice
}

// Keys implements evolve.KeyDist: one key per action, drawn from the Beta
// distribution the network gives the action; masked actions get uniform
// keys (decoding ignores them).
func (d *Dist) Keys(obs *env.Observation, cands []env.Candidate, rng *rand.Rand) ([]float64, error) {
	if len(obs.Candidates) > len(obs.Mask)-1 {
		return nil, fmt.Errorf("regal: %d candidates for %d actions", len(obs.Candidates), len(obs.Mask))
	}
	fd := d.Net.cfg.Features
	x := make([]float32, len(obs.Mask)*fd)
	features(obs, cands, x)
	n := d.Net
	n.mu.Lock()
	out := n.mlp.Forward(x, len(obs.Mask), &n.c)
	logits := append([]float32(nil), out...)
	n.mu.Unlock()
	keys := make([]float64, len(obs.Mask))
	var prng *rand.Rand
	if d.Sample {
		prng = rng
	}
	for a, ok := range obs.Mask {
		if !ok {
			keys[a] = rng.Float64()
			continue
		}
		lm, lv := logProbs(logits[a*outputs() : (a+1)*outputs()])
		m, v := pick(lm, prng), pick(lv, prng)
		al, be := betaParams(m, v)
		keys[a] = sampleBeta(rng, al, be)
		if d.Sample {
			d.record = append(d.record, choice{x: x[a*fd : (a+1)*fd], m: m, v: v})
		}
	}
	return keys, nil
}

// take returns and clears the recorded choices.
func (d *Dist) take() []choice {
	r := d.record
	d.record = nil
	return r
}

// accumulate adds to the parameter gradients the REINFORCE gradient of
// the loss -advantage * mean(log p(choice)) over the choices.
func (n *Net) accumulate(cs []choice, advantage float64) {
	if len(cs) == 0 {
		return
	}
	fd, o := n.cfg.Features, outputs()
	x := make([]float32, len(cs)*fd)
	for i, c := range cs {
		copy(x[i*fd:], c.x)
	}
	var cache nn.MLPCache[float32]
	out := n.mlp.Forward(x, len(cs), &cache)
	dy := make([]float32, len(out))
	scale := float32(-advantage / float64(len(cs)))
	for i, c := range cs {
		lm, lv := logProbs(out[i*o : (i+1)*o])
		row := dy[i*o : (i+1)*o]
		for k, l := range lm {
			row[k] = scale * (indicator(k == c.m) - float32(math.Exp(float64(l))))
		}
		for k, l := range lv {
			row[MeanBins+k] = scale * (indicator(k == c.v) - float32(math.Exp(float64(l))))
		}
	}
	n.mlp.Backward(&cache, dy, nil)
}

func indicator(b bool) float32 {
	if b {
		return 1
	}
	return 0
}
