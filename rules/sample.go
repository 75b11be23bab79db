package rules

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Default instantiation domains.
var (
	// defaultDims is drawn from for a dimension symbol without a domain.
	defaultDims = []int64{2, 3, 4, 5}
	// defaultSegLens is drawn from for a segment symbol's length.
	defaultSegLens = []int64{0, 1, 2}
	// segDims is drawn from for each dimension of a segment.
	segDims = []int64{2, 3}
)

// SampleOptions controls how instances are drawn.
type SampleOptions struct {
	// Instances is the number of instances wanted (default 4). At least
	// this many are returned, more when the rule has more attribute
	// combinations than that (up to MaxCombos), so every combination is
	// tried.
	Instances int
	// MaxCombos bounds the attribute combinations tried (default 8).
	MaxCombos int
	// Attempts bounds the draws (default 200).
	Attempts int
	// Seed varies the draws (the rule name is mixed in).
	Seed uint64
}

func (o SampleOptions) withDefaults() SampleOptions {
	if o.Instances <= 0 {
		o.Instances = 4
	}
	if o.MaxCombos <= 0 {
		o.MaxCombos = 8
	}
	if o.Attempts <= 0 {
		o.Attempts = 200
	}
	return o
}

// Sample draws distinct valid instances of r: dimension symbols from their
// domains (default 2..5; segments of 0 to 2 dimensions of 2 or 3), each
// attribute combination of the declared domains in turn. Instances whose
// source is invalid or fails a condition are skipped. It returns an error
// when it finds fewer than opts.Instances valid instances, fewer than 3
// distinct shape assignments (or opts.Instances when smaller), or fewer
// than two attribute combinations when the domains offer two, and when the
// rule's target fails for a valid instance.
func (r *Rule) Sample(opts SampleOptions) ([]Instance, error) {
	opts = opts.withDefaults()
	var attrVars []*Var
	for _, v := range r.Vars {
		if v.Kind != TensorVar && len(v.Domain) > 0 {
			attrVars = append(attrVars, v)
		}
	}
	combos := 1
	for _, v := range attrVars {
		combos *= len(v.Domain)
		if combos > opts.MaxCombos {
			combos = opts.MaxCombos
		}
	}
	want := max(opts.Instances, combos)
	rng := rand.New(rand.NewPCG(opts.Seed, NameHash(r.Name)))
	var out []Instance
	seen := map[string]bool{}
	shapes := map[string]bool{}
	comboOK := map[int]bool{}
	var lastErr error
	enough := func() bool {
		return len(out) >= want && len(comboOK) >= min(combos, 2) && len(shapes) >= min(opts.Instances, 3)
	}
	for attempt := 0; attempt < opts.Attempts && !enough(); attempt++ {
		combo := attempt % combos
		inst := Instance{Dims: map[string][]int64{}, Attrs: map[string]Value{}, Seed: opts.Seed + uint64(attempt)}
		syms, err := r.drawSymbols(rng)
		if err != nil {
			lastErr = err
			continue
		}
		for _, s := range r.Symbols {
			if s.IsSeg {
				inst.Dims[s.Name] = syms[s.Index].Ints
			} else {
				inst.Dims[s.Name] = []int64{syms[s.Index].Int}
			}
		}
		m := &Match{Rule: r, Attrs: make([]Value, len(r.Vars))}
		en := &env{syms: syms, m: m}
		k := combo
		bad := false
		for _, v := range attrVars {
			e := v.Domain[k%len(v.Domain)]
			k /= len(v.Domain)
			val, err := en.eval(e)
			if err != nil {
				bad = true
				lastErr = fmt.Errorf("domain of %s: %v", v.Name, err)
				break
			}
			inst.Attrs[v.Name] = val
			m.Attrs[v.Index] = val
		}
		if bad {
			continue
		}
		key := inst.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		if _, _, err := r.Instantiate(inst); err != nil {
			if errors.Is(err, ErrInvalidInstance) {
				lastErr = err
				continue
			}
			return out, fmt.Errorf("instance %s: %w", key, err)
		}
		dk := dimsKey(inst)
		if len(out) >= want && len(comboOK) >= min(combos, 2) && shapes[dk] {
			continue // only a new shape helps now
		}
		out = append(out, inst)
		shapes[dk] = true
		comboOK[combo] = true
	}
	if !enough() {
		msg := fmt.Sprintf("rule %s: found %d valid instance%s (%d distinct shapes, %d attribute combination%s) in %d attempts, want %d (%d shapes, %d combinations)",
			r.Name, len(out), plural(len(out)), len(shapes), len(comboOK), plural(len(comboOK)), opts.Attempts, want, min(opts.Instances, 3), min(combos, 2))
		if lastErr != nil {
			msg += "; last problem: " + lastErr.Error()
		}
		return out, errors.New(msg)
	}
	return out, nil
}

// dimsKey identifies an instance's shapes.
func dimsKey(in Instance) string {
	return Instance{Dims: in.Dims}.String()
}

// drawSymbols gives every symbol a random value from its domain (default
// 2..5; segments 0 to 2 dimensions of 2 or 3), assigning symbols whose
// domains refer to other symbols after those.
func (r *Rule) drawSymbols(rng *rand.Rand) ([]Value, error) {
	syms := make([]Value, len(r.Symbols))
	done := make([]bool, len(r.Symbols))
	en := &env{syms: syms}
	for left := len(r.Symbols); left > 0; {
		progress := false
		for _, s := range r.Symbols {
			if done[s.Index] || !depsDone(s.Domain, done) {
				continue
			}
			var choices []int64
			for _, e := range s.Domain {
				v, err := en.eval(e)
				if err != nil {
					return nil, fmt.Errorf("domain of %s: %v", s.Name, err)
				}
				choices = append(choices, v.Int)
			}
			if s.IsSeg {
				if choices == nil {
					choices = defaultSegLens
				}
				d := make([]int64, pick(rng, choices))
				for i := range d {
					d[i] = pick(rng, segDims)
				}
				syms[s.Index] = intsVal(d)
			} else {
				if choices == nil {
					choices = defaultDims
				}
				syms[s.Index] = intVal(pick(rng, choices))
			}
			done[s.Index], progress = true, true
			left--
		}
		if !progress {
			return nil, fmt.Errorf("rule %s: the domains of its dimension symbols refer to each other in a cycle", r.Name)
		}
	}
	return syms, nil
}

// depsDone reports whether every symbol the expressions use is assigned.
func depsDone(es []*Expr, done []bool) bool {
	for _, e := range es {
		if !exprDepsDone(e, done) {
			return false
		}
	}
	return true
}

func exprDepsDone(e *Expr, done []bool) bool {
	if e.Sym != nil && !done[e.Sym.Index] {
		return false
	}
	for _, a := range e.Args {
		if !exprDepsDone(a, done) {
			return false
		}
	}
	return true
}

func pick(rng *rand.Rand, xs []int64) int64 { return xs[rng.IntN(len(xs))] }
