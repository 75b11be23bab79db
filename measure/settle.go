package measure

import (
	"runtime"
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
// unit of the blocks before it, so at least two blocks, and at most
// settleMaxBlocks blocks or settleShare of opts.MaxTime.
func settle(opts MeasureOptions, run func() (time.Duration, error)) error {
	start := now()
	limit := time.Duration(settleShare * float64(opts.MaxTime))
	var best time.Duration
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
		if b > 0 && float64(fastest) >= (1-settleGain)*float64(best) {
			return nil
		}
		if b == 0 || fastest < best {
			best = fastest
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
