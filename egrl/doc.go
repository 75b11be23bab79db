// Package egrl provides Evolutionary Graph Reinforcement Learning (EGRL,
// Khadka et al.) on xrl's graph-rewriting environment: a population of
// graph-attention policies evolved by weight crossover and mutation, and a
// PPO learner trained alongside on the experience the whole population
// collects, whose policy migrates into the population periodically.
//
// # Representation
//
// Every member of the population is a gat.Net, the same network that
// package ppo trains. EGRL also evolves Boltzmann chromosomes (a prior and
// a temperature per node of the workload); xrl's action space has no fixed
// positions to attach such priors to (the candidates change with every
// graph), so this package evolves network weights only.
//
// # One generation
//
//  1. Every member that has no fitness yet runs one greedy episode from
//     the same environment seed (members whose weights did not change keep
//     their fitness, so unchanged elites cost no environment steps). A
//     member's fitness is the episode's speedup: start latency over the
//     lowest latency measured in the episode.
//  2. The learner runs Config.LearnerEpisodes episodes, sampling from its
//     policy, and takes one PPO update (ppo.Learner) on them and, with
//     Config.Shared, on the members' transitions relabelled with the
//     learner's own probabilities and values (EGRL's shared replay buffer;
//     for the on-policy learner this is an off-policy approximation).
//  3. The population is ranked. The best Config.EliteFrac are kept
//     unchanged; every other slot gets a child of an elite and a member
//     chosen by a tournament of three: single-point crossover over the
//     network's parameter tensors with probability Config.CrossoverProb,
//     otherwise a copy of the tournament winner, then, with probability
//     Config.MutationProb, Gaussian noise on a Config.MutationFrac share of
//     the weights, scaled by Config.MutationStd times each tensor's root
//     mean square.
//  4. Every Config.MigrateEvery generations the learner's weights replace
//     the weakest child (EGRL's migration); metrics name that member.
//
// The run stops after Config.Generations generations or once Config.MaxSteps
// environment steps are used (checked after every episode). With
// Population 0 only the learner runs: PPO alone on the same step budget
// and update schedule, the baseline of the comparison in docs/regal-egrl.md.
//
// The package uses only the public API of env (Rollout, Agent, Learner)
// and the exported learner of ppo, as a user's own algorithm would.
//
// A run directory receives metrics.jsonl (one "generation" record per
// generation, see GenerationRecord), config.json, and at the end
// best.gat (the top-ranked member, the policy EGRL deploys) and
// learner.gat, both gat checkpoints (internal/ckframe framing, CRC-32C).
// Runs do not resume.
package egrl
