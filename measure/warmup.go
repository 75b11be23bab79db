package measure

import (
	"slices"
	"time"
)

// warmUp runs the untimed start that Compare and CompareMany share, its
// runs recorded in scratch. First opts.Warmup rounds of round units each
// (one a session pair), unit(i) running the i-th; a settling comparison
// stops after the first round when its runs take slowWarmRun or more.
// The block size then follows from the warm-up's median run
// (blockRunsFor, rounded up to whole ABBA units). With opts.Settle,
// settling goes on in units settleUnit(i, k), k being that block size,
// until the runs stop getting faster, measured from the warm-up's
// fastest unit of unitRuns runs when those were slow (slowPrior). It
// returns the block size and the warm-up's median run.
func warmUp(opts MeasureOptions, round, unitRuns int, scratch *timedRuns, unit func(i int) error, settleUnit func(i, k int) error) (k int, warmRun time.Duration, err error) {
	for i := 0; i < opts.Warmup*round; i++ {
		if err := unit(i); err != nil {
			return 0, 0, err
		}
		if opts.Settle && i+1 == round && Summarize(slices.Clone(scratch.wall)).Median > slowWarmRun {
			// Runs of a quarter of a block's span or more: one unit a
			// pair warms the sessions, and settling goes on from there.
			break
		}
	}
	warmRun = Summarize(slices.Clone(scratch.wall)).Median
	k = blockRunsFor(opts.BlockRuns, warmRun)
	// Blocks hold whole ABBA units: an odd block gets one run more.
	k += k % bootstrapUnit
	if opts.Settle {
		i := 0
		o := opts
		o.BlockRuns = k
		err := settle(o, func() (time.Duration, error) {
			t0 := now()
			err := settleUnit(i, k)
			i++
			return now().Sub(t0), err
		}, slowPrior(scratch.wall, unitRuns))
		if err != nil {
			return 0, 0, err
		}
	}
	collectGarbage()
	return k, warmRun, nil
}
