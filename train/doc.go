// Package train provides the training flows that the command line runs, as
// package pipeline provides the optimise flow: a training run in a run
// directory (PPO on one model or across several, or EGRL on one), REGAL's
// network training and comparison, and the environments built from model
// files that `xrl env` serves and rolls out.
//
// A run owns its directory: Run names it (RunDir) and creates it, removes
// it again when the run fails before its first episode, and on
// Config.Resume reads the configuration stored there and refuses models or
// input shapes other than the ones the run was trained on. At the end it
// exports the fastest graph found (folded, verified against the original,
// written atomically and measured end to end) and draws the charts.
//
// Nothing here prints on its own: Run returns a Report value that the
// caller prints (Report.Write), lines that describe the run while it goes
// (its start, PPO's updates, EGRL's generations, the verification of the
// exported graph) are written to Config.Log, and episode progress goes to
// Config.Progress.
package train
