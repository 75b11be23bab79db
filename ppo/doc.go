// Package ppo provides xrl's trainer: proximal policy optimisation with a
// clipped objective (PPO-clip) for the graph-rewriting environment of
// package env and the policy network of package gat.
//
// The trainer reads top to bottom like CleanRL's ppo.py: collect
// Config.UpdateEvery episodes with the current policy, compute advantages
// with GAE, then run Config.Epochs passes of shuffled minibatches over
// them, each minibatch normalising its advantages and minimising
//
//	L = L_clip + VFCoef·L_value − EntCoef·H
//
// with a clipped value loss, a global gradient-norm clip and an Adam step.
// Every hyper-parameter lives in Config; its struct tags hold the default,
// the flag name and the one-line help, and Config.Flags turns them into
// command-line flags.
//
// A run directory holds metrics.jsonl (one JSON object per episode and per
// update, named as in CleanRL: see Metric names in metrics.go) and
// agent.ckpt, rewritten atomically after every update with everything
// needed to continue: network, Adam moments, random-number-generator
// states, counters, the best graph found so far and the length of the
// metric stream it covers. Resume truncates metrics.jsonl to that length
// and continues, so a killed run that is resumed writes the same stream as
// one that was never interrupted (given a deterministic latency model).
//
// NewTasks and ResumeTasks train one policy across several models: each
// episode draws one (round robin, or seeded random draws with
// Config.RandomModels), every episode record names its model, and the
// checkpoint keeps each model's progress; resuming on another set of
// models is refused. Eq. 2's rewards are relative to the drawn model's
// start latency, so models of any size contribute on one scale.
//
// The trainer uses only the public API of package env: its TrainingAgent
// implements env.Agent and env.Learner, stores each observation's action
// mask with the transition and re-applies that mask in the update.
package ppo
