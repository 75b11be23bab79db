package nn

import "math"

// Adam is the Adam optimiser (Kingma & Ba) with bias correction.
type Adam[F Float] struct {
	// LR is the step size; Beta1, Beta2 the moment decay rates; Eps the
	// denominator term (1e-5 as in CleanRL's PPO).
	LR, Beta1, Beta2, Eps float64
	// Steps counts the updates made so far.
	Steps int
	m, v  [][]F
}

// NewAdam returns an Adam optimiser with the given step size and the
// usual defaults β1 = 0.9, β2 = 0.999, ε = 1e-5.
func NewAdam[F Float](lr float64) *Adam[F] {
	return &Adam[F]{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-5}
}

// Step updates ps from their gradients. ps must be the same list, in the
// same order, at every call.
func (a *Adam[F]) Step(ps []*Param[F]) {
	if a.m == nil {
		a.m = make([][]F, len(ps))
		a.v = make([][]F, len(ps))
		for i, p := range ps {
			a.m[i] = make([]F, len(p.Value))
			a.v[i] = make([]F, len(p.Value))
		}
	}
	a.Steps++
	b1, b2 := F(a.Beta1), F(a.Beta2)
	c1 := 1 - math.Pow(a.Beta1, float64(a.Steps))
	c2 := 1 - math.Pow(a.Beta2, float64(a.Steps))
	lr := F(a.LR / c1)
	sc2 := F(1 / math.Sqrt(c2))
	eps := F(a.Eps)
	for i, p := range ps {
		m, v := a.m[i], a.v[i]
		for j, g := range p.Grad {
			m[j] = b1*m[j] + (1-b1)*g
			v[j] = b2*v[j] + (1-b2)*g*g
			p.Value[j] -= lr * m[j] / (F(math.Sqrt(float64(v[j])))*sc2 + eps)
		}
	}
}

// Moments returns the first and second moment estimates, one slice per
// parameter in Step's order (nil before the first Step). The slices are
// the optimiser's own; checkpoints copy them.
func (a *Adam[F]) Moments() (m, v [][]F) { return a.m, a.v }

// SetMoments restores moment estimates saved from Moments (with Steps),
// to resume training. The slices must match the parameters Step is given.
func (a *Adam[F]) SetMoments(m, v [][]F) { a.m, a.v = m, v }
