package env

import (
	"errors"
	"fmt"
	"sync"
)

// VecEnv steps several environments in parallel goroutines. Environments
// whose episode ended must be reset with ResetOne before they are stepped
// again (there is no automatic reset, so no observation is lost).
type VecEnv struct {
	Envs []*Env
}

// StepResult is one environment's outcome in a vectorised step.
type StepResult struct {
	Obs                   *Observation
	Reward                float64
	Terminated, Truncated bool
	Info                  Info
	Err                   error
}

// NewVec groups environments.
func NewVec(envs ...*Env) (*VecEnv, error) {
	if len(envs) == 0 {
		return nil, errors.New("env: NewVec needs at least one environment")
	}
	return &VecEnv{Envs: envs}, nil
}

// Reset resets every environment, env i with seeds[i].
func (v *VecEnv) Reset(seeds []uint64) ([]*Observation, []Info, error) {
	if len(seeds) != len(v.Envs) {
		return nil, nil, fmt.Errorf("env: %d seeds for %d environments", len(seeds), len(v.Envs))
	}
	obs := make([]*Observation, len(v.Envs))
	infos := make([]Info, len(v.Envs))
	errs := make([]error, len(v.Envs))
	v.parallel(func(i int) { obs[i], infos[i], errs[i] = v.Envs[i].Reset(seeds[i]) })
	return obs, infos, errors.Join(errs...)
}

// ResetOne resets environment i.
func (v *VecEnv) ResetOne(i int, seed uint64) (*Observation, Info, error) {
	return v.Envs[i].Reset(seed)
}

// Step applies actions[i] to environment i, all in parallel.
func (v *VecEnv) Step(actions []int) ([]StepResult, error) {
	if len(actions) != len(v.Envs) {
		return nil, fmt.Errorf("env: %d actions for %d environments", len(actions), len(v.Envs))
	}
	res := make([]StepResult, len(v.Envs))
	v.parallel(func(i int) {
		r := &res[i]
		r.Obs, r.Reward, r.Terminated, r.Truncated, r.Info, r.Err = v.Envs[i].Step(actions[i])
	})
	var errs []error
	for i, r := range res {
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("env %d: %w", i, r.Err))
		}
	}
	return res, errors.Join(errs...)
}

func (v *VecEnv) parallel(f func(i int)) {
	var wg sync.WaitGroup
	for i := range v.Envs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			f(i)
		}(i)
	}
	wg.Wait()
}
