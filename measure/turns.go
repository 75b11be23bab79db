package measure

import "time"

// Session pairs take turns of as many blocks as last pairTurnSpan (at
// least one), each turn started by an untimed block; within a turn, each
// block runs one model's BlockRuns runs in a row, then the other's, as
// the independent check does (scripts/check-speedup) and as a user calls
// one model again and again. On sub-millisecond models, how the runs are
// ordered moved the figures more than their noise:
//   - pairs taking turns a block at a time ran each session cold, its
//     caches holding the other pairs' weights and buffers: deit_timm's
//     written model, 1.21-1.29x in the check, read 1.31-1.35x that way,
//     1.27-1.28x in turns of four or eight blocks (35-70 ms) each started
//     by an untimed ABBA unit;
//   - a session stays slow for several runs after another pair's turn,
//     more than one ABBA unit warms: vit_hf's original ran its first two
//     timed runs of a turn at 762 and 635 µs against 510-575 µs for the
//     rest, and as its median rose with them, the written model read
//     1.33-1.37x against the check's 1.25-1.28x. A whole untimed block
//     of each model, the first timed model running last, brought it to
//     1.28-1.30x;
//   - runs alternated one by one charge each model the other's cache
//     footprint, most the faster one: vit_tiny's written model, 1.516x in
//     the check, read 1.437-1.441x run by run, 1.506-1.510x in blocks in
//     a row (docs/perf.md, "Session pairs in turns, blocks in a row").
//
// A turn's length is set in time, since the first look waits for every
// pair's turn: a shape sweep times every shape on the pairs loaded for
// its smallest, and HF BERT at batch 8 (18 ms a run) waited 32 blocks,
// 9 s, in turns of four.
//
// The runs of a block in a row share what the machine did while that
// model ran, so the bootstrap resamples blocks, within pairs. A single
// pair (models of a millisecond and more) times blocks in a row
// too, and looks first after more of them (see inRowFirstLook).
const pairTurnSpan = 32 * time.Millisecond

// turnBlocks returns the blocks of a session pair's turn over pairs
// pairs, in blocks of k runs of each model taking about run each: those
// that fit in pairTurnSpan, at least 1; 1 for a single pair (whose turn
// never ends) or an unknown run time.
func turnBlocks(pairs, k int, run time.Duration) int {
	if pairs <= 1 || k <= 0 || run <= 0 {
		return 1
	}
	return max(1, int(pairTurnSpan/(time.Duration(2*k)*run)))
}
