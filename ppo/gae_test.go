package ppo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// cleanRLGAE is CleanRL's loop: dones[t] marks that step t starts a new
// episode, and the step after the last one has nextDone and nextValue.
// Truncations are treated as terminations there, so it is compared only
// on sequences whose episodes terminate.
func cleanRLGAE(rewards, values, dones []float64, nextValue, nextDone, gamma, lambda float64) []float64 {
	n := len(rewards)
	adv := make([]float64, n)
	last := 0.0
	for t := n - 1; t >= 0; t-- {
		var nonTerminal, nextV float64
		if t == n-1 {
			nonTerminal, nextV = 1-nextDone, nextValue
		} else {
			nonTerminal, nextV = 1-dones[t+1], values[t+1]
		}
		delta := rewards[t] + gamma*nextV*nonTerminal - values[t]
		last = delta + gamma*lambda*nonTerminal*last
		adv[t] = last
	}
	return adv
}

// sumGAE is the definition: A_t = Σ_k (γλ)^k δ_{t+k} over the rest of the
// episode, with δ at the episode's last step using NextValue.
func sumGAE(steps []Step, gamma, lambda float64) []float64 {
	adv := make([]float64, len(steps))
	for t := range steps {
		w := 1.0
		for k := t; k < len(steps); k++ {
			next := steps[k].NextValue
			if !steps[k].End {
				next = steps[k+1].Value
			}
			adv[t] += w * (steps[k].Reward + gamma*next - steps[k].Value)
			if steps[k].End {
				break
			}
			w *= gamma * lambda
		}
	}
	return adv
}

func randomEpisodes(rng *rand.Rand, episodes int, truncate bool) []Step {
	var steps []Step
	for e := 0; e < episodes; e++ {
		n := 1 + rng.IntN(6)
		for i := 0; i < n; i++ {
			s := Step{Reward: rng.NormFloat64() * 3, Value: rng.NormFloat64()}
			if i == n-1 {
				s.End = true
				if truncate && rng.IntN(2) == 0 {
					s.NextValue = rng.NormFloat64()
				}
			}
			steps = append(steps, s)
		}
	}
	return steps
}

func TestGAEHandWorked(t *testing.T) {
	// One episode of two steps, γ = 0.5, λ = 0.5:
	// δ1 = 2 + 0 − 1 = 1; δ0 = 1 + 0.5·1 − 0.5 = 1; A0 = 1 + 0.25·1 = 1.25.
	steps := []Step{{Reward: 1, Value: 0.5}, {Reward: 2, Value: 1, End: true}}
	adv, ret := GAE(steps, 0.5, 0.5)
	want := []float64{1.25, 1}
	for i := range want {
		if math.Abs(adv[i]-want[i]) > 1e-12 || math.Abs(ret[i]-(want[i]+steps[i].Value)) > 1e-12 {
			t.Errorf("step %d: advantage %v return %v, want %v and %v", i, adv[i], ret[i], want[i], want[i]+steps[i].Value)
		}
	}
}

func TestGAEMatchesReferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name          string
		gamma, lambda float64
		truncate      bool
	}{
		{"paper", 0.99, 0.95, false},
		{"paper truncated", 0.99, 0.95, true},
		{"monte carlo", 1, 1, false},
		{"td0", 0.9, 0, true},
		{"no discount", 0, 0.95, false},
	}
	for _, c := range cases {
		for trial := 0; trial < 20; trial++ {
			steps := randomEpisodes(rng, 1+rng.IntN(5), c.truncate)
			adv, ret := GAE(steps, c.gamma, c.lambda)
			ref := sumGAE(steps, c.gamma, c.lambda)
			if !c.truncate {
				rewards, values, dones := make([]float64, len(steps)), make([]float64, len(steps)), make([]float64, len(steps))
				for i, s := range steps {
					rewards[i], values[i] = s.Reward, s.Value
					if i > 0 && steps[i-1].End {
						dones[i] = 1
					}
				}
				clean := cleanRLGAE(rewards, values, dones, 0, 1, c.gamma, c.lambda)
				for i := range clean {
					if math.Abs(clean[i]-ref[i]) > 1e-9 {
						t.Fatalf("%s: the two references disagree at %d: %v vs %v", c.name, i, clean[i], ref[i])
					}
				}
			}
			for i := range steps {
				if math.Abs(adv[i]-ref[i]) > 1e-9 {
					t.Fatalf("%s trial %d step %d: advantage %v, reference %v", c.name, trial, i, adv[i], ref[i])
				}
				if math.Abs(ret[i]-adv[i]-steps[i].Value) > 1e-12 {
					t.Fatalf("%s: return %v is not advantage %v + value %v", c.name, ret[i], adv[i], steps[i].Value)
				}
			}
		}
	}
}
