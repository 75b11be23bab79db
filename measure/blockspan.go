package measure

import "time"

// A block of BlockRuns runs is a unit of the machine's moods for a model
// of milliseconds (8 runs of the corpus encoder at 1x128 take 45 ms); for
// a slow one it is a long stretch of time (8 runs of ViT-B/16 at batch 8
// took 5.5 s), and Compare's first look, 12 blocks in, would come after
// two minutes (MaxTime ended it long before). A comparison of a model
// whose runs take longer than blockSpan/BlockRuns therefore uses shorter
// blocks, of about blockSpan of each model (at least one ABBA unit), and
// looks first once minCompareBlocks of those are timed, or minSlowBlocks
// when they took slowFirstLook. Models of a few milliseconds keep
// BlockRuns and minCompareBlocks.
//
// blockSpan was 250 ms: the encoder at batch 8 (40 ms a run) then timed
// blocks of 6 runs, and the shape sweep's first look there came after
// 6 s. At 100 ms a block of such a model is about as long as one of the
// encoder at batch 1, and that look comes after 2 s.
const (
	blockSpan     = 100 * time.Millisecond
	minSlowBlocks = 8
	slowFirstLook = 6 * time.Second
)

// blockRunsFor returns the runs of each model that make a block when one
// run takes about run: k, or fewer (an even number, at least
// bootstrapUnit) so that a block of each model lasts about blockSpan.
// run <= 0 (not known) keeps k.
func blockRunsFor(k int, run time.Duration) int {
	if run <= 0 || time.Duration(k)*run <= blockSpan {
		return k
	}
	n := int(blockSpan / run)
	n -= n % bootstrapUnit
	return min(k, max(bootstrapUnit, n))
}

// enoughBlocks reports whether blocks complete blocks, timed in elapsed,
// are enough for Compare's first look: least (firstLookBlocks), or
// minSlowBlocks once they took slowFirstLook.
func enoughBlocks(blocks, least int, elapsed time.Duration) bool {
	return blocks >= least || blocks >= minSlowBlocks && elapsed >= slowFirstLook
}

// slowWarmRun is the run time from which a comparison that settles warms
// each session pair up with one ABBA unit instead of MeasureOptions.Warmup,
// settling then going on until the runs stop getting faster. ViT-B/16
// (90 ms a run) spent 0.5 s of each comparison at batch 1, and 1.1 s at
// batch 2, on the two more units, its sessions having just run in
// verification or the comparison before.
const slowWarmRun = blockSpan / 4

// Every comparison, of one session pair too, times a block of one
// model's runs in a row and then the other's, as the independent check
// does, and not two runs at a time (AABB BBAA): a user calls one model
// again and again, and each switch charges the model run next the
// other's cache footprint. On HF BERT's written model (4-5 ms a run),
// blocks of eight and of two, alternated every 0.3 s on the same
// sessions, read 1.354-1.402x and 1.293-1.319x; blocks of four
// 1.343-1.439x against eight's 1.367-1.444x. Two by two, xrl compare read
// 1.24-1.35x where tools/speedcheck read 1.37-1.41x from one session
// pair, and optimize printed 1.25x in four of five runs against the
// check's 1.37x (docs/perf.md, "Blocks in a row for one session pair").
//
// inRowFirstLook is the least number of blocks before the first look of
// a comparison of one session pair whose blocks hold more than one
// bootstrapUnit of runs, unless slowFirstLook has passed. A block of
// eight runs in a row is one resampling unit where the same runs, timed
// two by two, were four: on a fake host with slow spells of one model,
// identical models were told apart at 12 blocks in 10 of 200 sequential
// tests and 5 of 200 two by two; at 24 blocks, in 4 of 200.
const inRowFirstLook = 2 * minCompareBlocks

// firstLookBlocks returns the least number of blocks of k runs of each
// model before the first look over pairs session pairs: inRowFirstLook
// for one pair whose blocks hold more than bootstrapUnit runs, else
// minCompareBlocks (CompareMany's units, pairs 1 and k bootstrapUnit,
// too).
func firstLookBlocks(pairs, k int) int {
	if pairs == 1 && k > bootstrapUnit {
		return inRowFirstLook
	}
	return minCompareBlocks
}
