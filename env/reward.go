package env

import "time"

// RewardInput is what a RewardFunc sees after each step.
type RewardInput struct {
	// Step is the 1-based number of the step just taken.
	Step int
	// Measured reports whether latency was measured at this step (every
	// FeedbackEvery steps and at the end of the episode).
	Measured bool
	// Initial is the latency of the episode's starting graph (RT_0).
	Initial time.Duration
	// Previous is the latency at the previous measurement (RT_{t-1} in
	// the paper's Eq. 2: the last measured graph).
	Previous time.Duration
	// Current is the latency of the current graph when Measured, else 0.
	Current time.Duration
	// Terminated and Truncated report whether the episode ends here.
	Terminated, Truncated bool
}

// RewardFunc computes a step's reward. Users may replace the default.
type RewardFunc func(in RewardInput) float64

// UnmeasuredReward is the constant reward of steps without a latency
// measurement (X-RLflow, section 3.3).
const UnmeasuredReward = 0.1

// DefaultReward is X-RLflow's Eq. 2: when latency was measured, the
// relative improvement since the previous measurement in percent of the
// initial latency, (RT_prev - RT_now) / RT_0 * 100; otherwise
// UnmeasuredReward.
func DefaultReward(in RewardInput) float64 {
	if !in.Measured {
		return UnmeasuredReward
	}
	if in.Initial <= 0 {
		return 0
	}
	return float64(in.Previous-in.Current) / float64(in.Initial) * 100
}
