package ppo

// Step is what GAE needs of one transition.
type Step struct {
	// Reward received after the action.
	Reward float64
	// Value is the critic's estimate V(s) of the state acted in.
	Value float64
	// End reports that the episode ended with this step (terminated or
	// truncated). The last step of a sequence must be an End.
	End bool
	// NextValue is the bootstrap value after an End step: 0 when the
	// episode terminated, V(s') of the final observation when it was
	// truncated at the horizon (the return continues past the cut).
	NextValue float64
}

// GAE returns generalised advantage estimates (Schulman et al. 2016) and
// the value targets (advantage + value) of steps, which hold whole
// episodes back to back:
//
//	δ_t = r_t + γ·V(s_{t+1}) − V(s_t),   A_t = δ_t + γλ·A_{t+1}
//
// where V(s_{t+1}) and A_{t+1} come from the next step within the same
// episode, and after an End step V(s_{t+1}) = NextValue and A_{t+1} = 0.
func GAE(steps []Step, gamma, lambda float64) (adv, ret []float64) {
	n := len(steps)
	adv = make([]float64, n)
	ret = make([]float64, n)
	var next float64 // A_{t+1}
	for t := n - 1; t >= 0; t-- {
		s := steps[t]
		nextV, carry := s.NextValue, 0.0
		if !s.End && t+1 < n {
			nextV, carry = steps[t+1].Value, next
		}
		delta := s.Reward + gamma*nextV - s.Value
		next = delta + gamma*lambda*carry
		adv[t] = next
		ret[t] = next + s.Value
	}
	return adv, ret
}
