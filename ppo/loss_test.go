package ppo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refLoss is the PPO loss written out as CleanRL computes it, element-wise
// arrays first, means last.
func refLoss(in LossInput, c LossCoefs) (total, pg, vl, ent float64) {
	n := len(in.NewLogProb)
	pgl := make([]float64, n)
	vls := make([]float64, n)
	for i := 0; i < n; i++ {
		ratio := math.Exp(in.NewLogProb[i] - in.OldLogProb[i])
		lo, hi := 1-c.ClipCoef, 1+c.ClipCoef
		clipped := ratio
		if clipped < lo {
			clipped = lo
		}
		if clipped > hi {
			clipped = hi
		}
		pgl[i] = math.Max(-in.Advantage[i]*ratio, -in.Advantage[i]*clipped)
		un := math.Pow(in.NewValue[i]-in.Return[i], 2)
		if c.ClipValueLoss {
			d := in.NewValue[i] - in.OldValue[i]
			d = math.Max(-c.ClipCoef, math.Min(c.ClipCoef, d))
			cl := math.Pow(in.OldValue[i]+d-in.Return[i], 2)
			vls[i] = 0.5 * math.Max(un, cl)
		} else {
			vls[i] = 0.5 * un
		}
	}
	for i := 0; i < n; i++ {
		pg += pgl[i] / float64(n)
		vl += vls[i] / float64(n)
		ent += in.Entropy[i] / float64(n)
	}
	return pg - c.EntCoef*ent + c.VFCoef*vl, pg, vl, ent
}

func randomLossInput(rng *rand.Rand, n int) LossInput {
	in := LossInput{}
	for i := 0; i < n; i++ {
		old := -rng.Float64() * 3
		in.OldLogProb = append(in.OldLogProb, old)
		in.NewLogProb = append(in.NewLogProb, old+rng.NormFloat64()*0.3) // ratios on both sides of the clip
		in.Advantage = append(in.Advantage, rng.NormFloat64())
		ov := rng.NormFloat64()
		in.OldValue = append(in.OldValue, ov)
		in.NewValue = append(in.NewValue, ov+rng.NormFloat64()*0.3)
		in.Return = append(in.Return, rng.NormFloat64())
		in.Entropy = append(in.Entropy, rng.Float64()*2)
	}
	return in
}

func TestLossMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	coefs := []LossCoefs{
		{ClipCoef: 0.2, VFCoef: 0.5, EntCoef: 0.01, ClipValueLoss: true},
		{ClipCoef: 0.2, VFCoef: 0.5, EntCoef: 0.01},
		{ClipCoef: 0.1, VFCoef: 1, EntCoef: 0.1, ClipValueLoss: true},
	}
	for ci, c := range coefs {
		for trial := 0; trial < 50; trial++ {
			in := randomLossInput(rng, 1+rng.IntN(16))
			out := Loss(in, c)
			total, pg, vl, ent := refLoss(in, c)
			for _, p := range []struct {
				name      string
				got, want float64
			}{{"loss", out.Loss, total}, {"policy", out.PolicyLoss, pg}, {"value", out.ValueLoss, vl}, {"entropy", out.Entropy, ent}} {
				if math.Abs(p.got-p.want) > 1e-12 {
					t.Fatalf("coefs %d trial %d: %s loss %v, reference %v", ci, trial, p.name, p.got, p.want)
				}
			}
			// Gradients against central differences of the reference,
			// skipping points where a kink lies within the step.
			const h = 1e-6
			check := func(name string, xs []float64, grad []float64) {
				for i := range xs {
					x := xs[i]
					xs[i] = x + h
					up, _, _, _ := refLoss(in, c)
					xs[i] = x - h
					down, _, _, _ := refLoss(in, c)
					xs[i] = x
					fwd, bwd := (up-total)/h, (total-down)/h
					if math.Abs(fwd-bwd) > 1e-4 {
						continue // a kink of a max or a clip
					}
					num := (up - down) / (2 * h)
					if math.Abs(num-grad[i]) > 1e-6 {
						t.Fatalf("coefs %d trial %d: d loss/d %s[%d] = %v, finite difference %v", ci, trial, name, i, grad[i], num)
					}
				}
			}
			check("logprob", in.NewLogProb, out.DLogProb)
			check("value", in.NewValue, out.DValue)
			check("entropy", in.Entropy, out.DEntropy)
		}
	}
}

func TestLossClipping(t *testing.T) {
	c := LossCoefs{ClipCoef: 0.2, VFCoef: 0.5, EntCoef: 0.01, ClipValueLoss: true}
	cases := []struct {
		name         string
		ratio, adv   float64
		gradZero     bool
		clipFraction float64
	}{
		{"inside", 1.1, 1, false, 0},
		{"above, positive advantage: clipped", 1.5, 1, true, 1},
		{"above, negative advantage: not clipped", 1.5, -1, false, 1},
		{"below, positive advantage: not clipped", 0.5, 1, false, 1},
		{"below, negative advantage: clipped", 0.5, -1, true, 1},
	}
	for _, tc := range cases {
		in := LossInput{
			NewLogProb: []float64{math.Log(tc.ratio)}, OldLogProb: []float64{0}, Advantage: []float64{tc.adv},
			NewValue: []float64{0}, OldValue: []float64{0}, Return: []float64{0}, Entropy: []float64{1},
		}
		out := Loss(in, c)
		if (out.DLogProb[0] == 0) != tc.gradZero {
			t.Errorf("%s: policy gradient %v", tc.name, out.DLogProb[0])
		}
		if out.ClipFrac != tc.clipFraction {
			t.Errorf("%s: clipfrac %v, want %v", tc.name, out.ClipFrac, tc.clipFraction)
		}
		wantKL := (tc.ratio - 1) - math.Log(tc.ratio)
		if math.Abs(out.ApproxKL-wantKL) > 1e-12 || math.Abs(out.OldApproxKL+math.Log(tc.ratio)) > 1e-12 {
			t.Errorf("%s: approx_kl %v old_approx_kl %v", tc.name, out.ApproxKL, out.OldApproxKL)
		}
	}
	// The value moved by 1 from its old estimate 0, past the target 0.9;
	// the clipped estimate 0.2 is further from the target, so the clipped
	// branch is taken and it has no gradient.
	in := LossInput{NewLogProb: []float64{0}, OldLogProb: []float64{0}, Advantage: []float64{0},
		NewValue: []float64{1}, OldValue: []float64{0}, Return: []float64{0.9}, Entropy: []float64{0}}
	if out := Loss(in, c); out.DValue[0] != 0 || math.Abs(out.ValueLoss-0.5*0.7*0.7) > 1e-12 {
		t.Errorf("clipped value: loss %v gradient %v", out.ValueLoss, out.DValue[0])
	}
	c.ClipValueLoss = false
	if out := Loss(in, c); math.Abs(out.DValue[0]-0.5*0.1) > 1e-12 {
		t.Errorf("unclipped value gradient %v, want 0.05", out.DValue[0])
	}
}

func TestNormalize(t *testing.T) {
	cases := []struct {
		in, want []float64
	}{
		{[]float64{1, 2, 3}, []float64{-1, 0, 1}},
		{[]float64{5}, []float64{5}},
		{[]float64{2, 2}, []float64{0, 0}},
		{nil, nil},
	}
	for _, c := range cases {
		got := Normalize(c.in)
		if len(got) != len(c.want) {
			t.Fatalf("Normalize(%v) = %v", c.in, got)
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-6 {
				t.Errorf("Normalize(%v) = %v, want %v", c.in, got, c.want)
			}
		}
	}
	// Unbiased deviation, as torch.std: mean 0, sample std 1.
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, 16)
	for i := range x {
		x[i] = rng.NormFloat64()*3 + 7
	}
	y := Normalize(x)
	var m, s float64
	for _, v := range y {
		m += v / 16
	}
	for _, v := range y {
		s += (v - m) * (v - m) / 15
	}
	if math.Abs(m) > 1e-9 || math.Abs(s-1) > 1e-6 {
		t.Errorf("normalised mean %v variance %v", m, s)
	}
}

func TestExplainedVariance(t *testing.T) {
	y := []float64{1, 2, 3, 4}
	cases := []struct {
		name string
		pred []float64
		want float64
	}{
		{"perfect", []float64{1, 2, 3, 4}, 1},
		{"mean", []float64{2.5, 2.5, 2.5, 2.5}, 0},
		{"offset", []float64{2, 3, 4, 5}, 1},
		{"reversed", []float64{4, 3, 2, 1}, -3},
	}
	for _, c := range cases {
		if got := ExplainedVariance(c.pred, y); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if got := ExplainedVariance([]float64{1, 2}, []float64{3, 3}); !math.IsNaN(got) {
		t.Errorf("constant targets: %v, want NaN", got)
	}
}
