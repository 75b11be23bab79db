package measure

import (
	"runtime"
	"slices"
	"time"
)

// Settling: a fresh session runs slower for a while (allocator arenas
// growing, caches and branch predictors cold, thread pools and the clock
// frequency ramping up), and a machine that was just busy needs a moment
// too. Timing that starts too early reads that transient as the model's
// latency, most visibly on the first of several measurements.
const (
	// settleGain: a block whose fastest run is more than this fraction
	// faster than every block before it means the latency is still
	// falling.
	settleGain = 0.02
	// settleMaxBlocks bounds the settling blocks.
	settleMaxBlocks = 16
	// settleShare bounds settling to this share of MaxTime.
	settleShare = 0.25
)

// settle runs blocks of opts.BlockRuns untimed units (run returns the
// time of one unit: a run, or a run of each session in Compare) until a
// block's fastest unit is no more than settleGain faster than the fastest
// unit before it, and at most settleMaxBlocks blocks or settleShare of
// opts.MaxTime. prior, when positive, is the fastest such unit of the
// warm-up, and the first block may end settling; otherwise it takes two
// blocks at least.
func settle(opts MeasureOptions, run func() (time.Duration, error), prior time.Duration) error {
	start := now()
	limit := time.Duration(settleShare * float64(opts.MaxTime))
	best, have := prior, prior > 0
	for b := 0; b < settleMaxBlocks; b++ {
		var fastest time.Duration
		for i := 0; i < opts.BlockRuns; i++ {
			d, err := run()
			if err != nil {
				return err
			}
			if i == 0 || d < fastest {
				fastest = d
			}
		}
		if have && float64(fastest) >= (1-settleGain)*float64(best) {
			return nil
		}
		if !have || fastest < best {
			best, have = fastest, true
		}
		if now().Sub(start) >= limit {
			return nil
		}
	}
	return nil
}

// collectGarbage runs a garbage collection before timing starts. The
// collector's concurrent marking takes a share of the cores while it runs;
// on a 2-core machine, a cycle that falls due while a session is timed
// (after a caller has produced garbage: a profile trace parsed, graphs
// rewritten) doubled the latency read for a sub-millisecond model.
// Collected up front, the little that timing allocates rarely brings the
// next cycle due before timing ends. It is a variable so that tests can
// count the collections.
var collectGarbage = runtime.GC

// slowPrior is the prior of settle for a comparison whose warm-up ran
// runs, unit runs at a time, in the order timed: the fastest unit's
// time when the warm-up's median run takes slowWarmRun or more (the one
// warm-up unit such a model gets, see slowWarmRun), else 0. ViT-B/16's
// sessions, warm from verification and the look at their pace, settled
// after two blocks every time, 0.35-0.7 s of each comparison.
func slowPrior(runs []time.Duration, unit int) time.Duration {
	if len(runs) < unit || unit <= 0 || Summarize(slices.Clone(runs)).Median <= slowWarmRun {
		return 0
	}
	var best time.Duration
	for i := 0; i+unit <= len(runs); i += unit {
		if t := sum(runs[i : i+unit]); best == 0 || t < best {
			best = t
		}
	}
	return best
}
