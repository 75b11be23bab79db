package measure

import "time"

// A block of BlockRuns runs is a unit of the machine's moods for a model
// of milliseconds; for a slow one it is a long stretch of time (8 runs of
// ViT-B/16 at batch 8 took 5.5 s), and Compare's first look, 12 blocks
// in, would come after two minutes (MaxTime ended it long before). A
// comparison of a model whose runs take longer than blockSpan/BlockRuns
// therefore uses shorter blocks, of about blockSpan of each model (at
// least one ABBA unit), and looks first once minCompareBlocks of those
// are timed, or minSlowBlocks when they took longer than
// minCompareBlocks blocks of blockSpan would. Models of a few
// milliseconds keep BlockRuns and minCompareBlocks.
const (
	blockSpan     = 250 * time.Millisecond
	minSlowBlocks = 8
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
// are enough for Compare's first look: minCompareBlocks, or minSlowBlocks
// once they took as long as minCompareBlocks blocks of blockSpan of each
// model.
func enoughBlocks(blocks int, elapsed time.Duration) bool {
	return blocks >= minCompareBlocks || blocks >= minSlowBlocks && elapsed >= 2*minCompareBlocks*blockSpan
}
