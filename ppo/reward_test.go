package ppo

import (
	"testing"
	"time"

	"github.com/xrl-dev/xrl/env"
)

func TestShapeReward(t *testing.T) {
	ms := time.Millisecond
	improved := env.RewardInput{Step: 1, Measured: true, Initial: 10 * ms, Previous: 10 * ms, Current: 9 * ms}
	noop := env.RewardInput{Step: 2, Measured: true, Initial: 10 * ms, Previous: 9 * ms, Current: 9 * ms, Terminated: true}
	unmeasured := env.RewardInput{Step: 3, Initial: 10 * ms}
	double := func(in env.RewardInput) float64 { return 2 * env.DefaultReward(in) }
	for _, tc := range []struct {
		name   string
		reward env.RewardFunc
		cost   float64
		scale  float64
		in     env.RewardInput
		want   float64
	}{
		{"no cost keeps Eq. 2", nil, 0, 1, improved, 10},
		{"scale 0 (an old checkpoint) is 1", nil, 0, 0, improved, 10},
		{"cost on a gain", nil, 0.5, 1, improved, 9.5},
		{"cost on No-Op", nil, 0.5, 1, noop, -0.5},
		{"cost on an unmeasured step", nil, 0.25, 1, unmeasured, env.UnmeasuredReward - 0.25},
		{"cost on a user's reward", double, 1, 1, improved, 19},
		{"cost then scale", nil, 0.5, 0.1, improved, 0.95},
	} {
		got := shapeReward(tc.reward, tc.cost, tc.scale)(tc.in)
		if d := got - tc.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: reward %v, want %v", tc.name, got, tc.want)
		}
	}
}
