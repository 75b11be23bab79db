package gat

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/env"
	"github.com/xrl-dev/xrl/gat/nn"
)

// actSlope is the negative slope of the encoder's LeakyReLUs.
const actSlope = 0.01

// model holds the parameters of a network with element type F.
type model[F nn.Float] struct {
	cfg    Config
	node   *nn.Linear[F] // summed edge features → hidden
	emb    *nn.Param[F]  // class embeddings [Classes, Hidden]
	gat    []*nn.GAT[F]
	glob   *nn.Linear[F] // [pooled || global] → hidden
	noop   *nn.Param[F]  // the No-Op action's embedding [Hidden]
	pol    *nn.MLP[F]    // [candidate || current] → logit
	val    *nn.MLP[F]    // current → value
	params []*nn.Param[F]
}

// newModel returns a model with parameters initialised from cfg.Seed:
// orthogonal weights (gain √2, policy output 0.01, value output 1), zero
// biases, unit Gaussian class embeddings, zero No-Op embedding.
func newModel[F nn.Float](cfg Config) (*model[F], error) {
	cfg.fill()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.HeadHidden = append([]int(nil), cfg.HeadHidden...)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6a09e667f3bcc908))
	h := cfg.Hidden
	m := &model[F]{cfg: cfg}
	m.node = nn.NewLinear[F]("node", env.EdgeDim, h, math.Sqrt2, rng)
	m.emb = nn.NewParam[F]("node.emb", cfg.Classes, h)
	nn.Normal(m.emb, 1, rng)
	for l := 0; l < cfg.Layers; l++ {
		m.gat = append(m.gat, nn.NewGAT[F](fmt.Sprintf("gat%d", l), h, cfg.Heads, math.Sqrt2, rng))
	}
	m.glob = nn.NewLinear[F]("global", h+env.GlobalDim, h, math.Sqrt2, rng)
	m.noop = nn.NewParam[F]("noop", h)
	m.pol = nn.NewMLP[F]("policy", 2*h, cfg.HeadHidden, 1, 0.01, rng)
	m.val = nn.NewMLP[F]("value", h, cfg.HeadHidden, 1, 1, rng)

	m.params = append(m.params, m.node.Params()...)
	m.params = append(m.params, m.emb)
	for _, g := range m.gat {
		m.params = append(m.params, g.Params()...)
	}
	m.params = append(m.params, m.glob.Params()...)
	m.params = append(m.params, m.noop)
	m.params = append(m.params, m.pol.Params()...)
	m.params = append(m.params, m.val.Params()...)
	return m, nil
}
