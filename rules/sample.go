package rules

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/xrl-dev/xrl/internal/defaults"
)

// Default instantiation domains.
var (
	// defaultDims is drawn from for a dimension symbol without a domain;
	// 1 is in it so that broadcasting edge cases are exercised.
	defaultDims = []int64{1, 2, 3, 4, 5}
	// defaultSegLens is drawn from for a segment symbol's length.
	defaultSegLens = []int64{0, 1, 2}
	// segDims is drawn from for each dimension of a segment.
	segDims = []int64{1, 2, 3}
)

// MaxCombos is the largest number of attribute combinations a rule may
// declare (the product of its attribute and record domain sizes). The
// verifier tries every one of them, so a rule declaring more is rejected
// when it is loaded.
const MaxCombos = 256

// SampleOptions controls how instances are drawn.
type SampleOptions struct {
	// Instances is the number of instances wanted (default 4). At least
	// this many are returned, and at least one per attribute combination.
	Instances int
	// PerCombo bounds the draws tried for each attribute combination
	// before it is declared unsatisfiable (default 60).
	PerCombo int
	// Attempts bounds the extra draws made after every combination has an
	// instance, to reach Instances and 3 distinct shapes (default 200).
	Attempts int
	// Seed varies the draws (the rule name is mixed in).
	Seed uint64
}

func (o SampleOptions) withDefaults() SampleOptions {
	o.Instances = defaults.Positive(o.Instances, 4)
	o.PerCombo = defaults.Positive(o.PerCombo, 60)
	o.Attempts = defaults.Positive(o.Attempts, 200)
	return o
}

// NumCombos returns the number of attribute combinations r declares: the
// product of the sizes of its attribute and record variables' domains.
func (r *Rule) NumCombos() int {
	n := 1
	for _, v := range r.Vars {
		if v.Kind != TensorVar && len(v.Domain) > 0 {
			n *= len(v.Domain)
			if n > MaxCombos {
				return n
			}
		}
	}
	return n
}

// Sample draws distinct valid instances of r. Every attribute combination
// of the declared domains gets at least one instance (a combination that
// yields none in opts.PerCombo draws is an error: the domain declares
// something the rule cannot be verified on); then more instances are drawn
// until there are opts.Instances of them with at least 3 distinct shape
// assignments (or opts.Instances when smaller). Dimension symbols come
// from their domains (default 1..5; segments of 0 to 2 dimensions of 1 to
// 3); draws cycle through three modes: random, each defaulted dimension 1
// with probability one half (broadcasting edge cases), and all defaulted
// dimensions equal (sources valid only for equal sizes).
// Instances whose source is invalid or fails a condition are skipped. It
// also returns an error when the rule's target fails for a valid instance.
func (r *Rule) Sample(opts SampleOptions) ([]Instance, error) {
	opts = opts.withDefaults()
	var attrVars []*Var
	for _, v := range r.Vars {
		if v.Kind != TensorVar && len(v.Domain) > 0 {
			attrVars = append(attrVars, v)
		}
	}
	combos := r.NumCombos()
	if combos > MaxCombos {
		return nil, fmt.Errorf("rule %s declares %d attribute combinations, more than the %d the verifier tries", r.Name, combos, MaxCombos)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, NameHash(r.Name)))
	s := &sampler{r: r, rng: rng, attrVars: attrVars, seen: map[string]bool{}, shapes: map[string]bool{}, wide: map[int]bool{}}
	draw := 0
	for combo := 0; combo < combos; combo++ {
		got := false
		for a := 0; a < opts.PerCombo && !got; a++ {
			ok, err := s.try(combo, opts.Seed+uint64(draw), drawMode(draw))
			draw++
			if err != nil {
				return s.out, err
			}
			got = ok
		}
		if !got {
			msg := fmt.Sprintf("rule %s: attribute combination %d of %d has no valid instance in %d draws", r.Name, combo+1, combos, opts.PerCombo)
			if s.lastErr != nil {
				msg += "; last problem: " + s.lastErr.Error()
			}
			return s.out, errors.New(msg)
		}
	}
	wantShapes := min(opts.Instances, 3)
	// Every draw mode is tried a few times after the combinations are
	// covered, so the instances include equal dimensions (which some
	// sources need to be valid at all) as well as ones.
	// Draws go on (up to opts.Attempts) until every defaulted dimension
	// symbol has been at least 2 in some valid instance: a source whose
	// instances are mostly degenerate (an inner dimension of 1) needs the
	// rarer general ones too.
	enough := func(a int) bool {
		return len(s.out) >= opts.Instances && len(s.shapes) >= wantShapes && a >= 3*numModes
	}
	a := 0
	for ; a < opts.Attempts && !(enough(a) && s.allWide()); a++ {
		if _, err := s.try(a%combos, opts.Seed+uint64(draw), drawMode(draw)); err != nil {
			return s.out, err
		}
		draw++
	}
	if !enough(a) {
		msg := fmt.Sprintf("rule %s: found %d valid instance%s (%d distinct shapes) in %d draws, want %d (%d shapes)",
			r.Name, len(s.out), plural(len(s.out)), len(s.shapes), draw, opts.Instances, wantShapes)
		if s.lastErr != nil {
			msg += "; last problem: " + s.lastErr.Error()
		}
		return s.out, errors.New(msg)
	}
	return s.out, nil
}

// Draw modes for defaulted dimension symbols.
const (
	// modeRandom draws each from its default domain.
	modeRandom = iota
	// modeOnes sets each to 1 with probability one half (broadcasting).
	modeOnes
	// modeSame gives all of them one common value of 2 or more.
	modeSame
	// modeSmall draws each from {1, 2} (sums of small sizes: Concat).
	modeSmall
	numModes
)

// drawMode is the mode of draw number i.
func drawMode(i int) int { return i % numModes }

// sampler holds the state of one Sample call.
type sampler struct {
	r        *Rule
	rng      *rand.Rand
	attrVars []*Var
	out      []Instance
	seen     map[string]bool
	shapes   map[string]bool
	lastErr  error
	// wide marks the defaulted dimension symbols that were at least 2 in
	// a kept instance.
	wide map[int]bool
}

// allWide reports whether every defaulted dimension symbol was at least 2
// in some kept instance.
func (s *sampler) allWide() bool {
	for _, sym := range s.r.Symbols {
		if !sym.IsSeg && len(sym.Domain) == 0 && !s.wide[sym.Index] {
			return false
		}
	}
	return true
}

// try draws one instance for attribute combination combo and keeps it
// when it is new and valid (reported by ok). The error is a fault of the
// rule (its target cannot be built for a valid instance).
func (s *sampler) try(combo int, seed uint64, mode int) (ok bool, err error) {
	r := s.r
	inst := Instance{Dims: map[string][]int64{}, Attrs: map[string]Value{}, Seed: seed}
	syms, err := r.drawSymbols(s.rng, mode)
	if err != nil {
		s.lastErr = err
		return false, nil
	}
	for _, sym := range r.Symbols {
		if sym.IsSeg {
			inst.Dims[sym.Name] = syms[sym.Index].Ints
		} else {
			inst.Dims[sym.Name] = []int64{syms[sym.Index].Int}
		}
	}
	m := &Match{Rule: r, Attrs: make([]Value, len(r.Vars))}
	en := &env{syms: syms, m: m}
	k := combo
	for _, v := range s.attrVars {
		e := v.Domain[k%len(v.Domain)]
		k /= len(v.Domain)
		val, err := en.eval(e)
		if err != nil {
			s.lastErr = fmt.Errorf("domain of %s: %v", v.Name, err)
			return false, nil
		}
		inst.Attrs[v.Name] = val
		m.Attrs[v.Index] = val
	}
	key := inst.String()
	if s.seen[key] {
		return false, nil
	}
	s.seen[key] = true
	if _, _, err := r.Instantiate(inst); err != nil {
		if errors.Is(err, ErrInvalidInstance) {
			s.lastErr = err
			return false, nil
		}
		return false, fmt.Errorf("instance %s: %w", key, err)
	}
	s.out = append(s.out, inst)
	s.shapes[dimsKey(inst)] = true
	for _, sym := range r.Symbols {
		if !sym.IsSeg && len(sym.Domain) == 0 && inst.Dims[sym.Name][0] >= 2 {
			s.wide[sym.Index] = true
		}
	}
	return true, nil
}

// dimsKey identifies an instance's shapes.
func dimsKey(in Instance) string {
	return Instance{Dims: in.Dims}.String()
}

// drawSymbols gives every symbol a random value from its domain (default
// 1..5; segments 0 to 2 dimensions of 1 to 3), assigning symbols whose
// domains refer to other symbols after those. In modeOnes each defaulted
// dimension (and segment dimension) is 1 with probability one half; in
// modeSame they all get one common value of at least 2.
func (r *Rule) drawSymbols(rng *rand.Rand, mode int) ([]Value, error) {
	syms := make([]Value, len(r.Symbols))
	done := make([]bool, len(r.Symbols))
	en := &env{syms: syms}
	same := pick(rng, defaultDims[1:])
	dim := func(xs []int64) int64 {
		switch {
		case mode == modeOnes && rng.IntN(2) == 0:
			return 1
		case mode == modeSame:
			return min(same, xs[len(xs)-1])
		case mode == modeSmall:
			return 1 + rng.Int64N(2)
		}
		return pick(rng, xs)
	}
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
					d[i] = dim(segDims)
				}
				syms[s.Index] = intsVal(d)
			} else {
				if choices == nil {
					syms[s.Index] = intVal(dim(defaultDims))
				} else {
					syms[s.Index] = intVal(pick(rng, choices))
				}
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
