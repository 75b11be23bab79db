package measure

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// Comparison is the result of an interleaved A/B latency measurement.
//
// The runs are grouped in blocks: each block runs A and B BlockRuns times
// each, alternating in ABBA order, and yields one block ratio, the fastest
// B run of the block over its fastest A run. Noise from other processes on
// the machine only ever adds time, so the fastest run of a short block is
// the best estimate of the undisturbed latency, and A and B of one block
// see the same machine.
type Comparison struct {
	A, B Stats
	// Ratio is the median over blocks of the block ratio latency(B) /
	// latency(A): below 1 means B is faster.
	Ratio float64
	// RatioLo and RatioHi bound a distribution-free 99% confidence
	// interval of the median ratio (from order statistics of the block
	// ratios): the stated spread of Ratio.
	RatioLo, RatioHi float64
	// RatioP10 and RatioP90 bound the middle 80% of the block ratios.
	RatioP10, RatioP90 float64
	// RatioMAD is the median absolute deviation of the block ratios from
	// Ratio, relative to Ratio.
	RatioMAD float64
	// CPURatio is the same median ratio computed from process CPU time
	// instead of wall time (0 when the sessions use no measurable CPU
	// time): a cross-check that is insensitive to being descheduled.
	CPURatio float64
	// Pairs is the number of timed runs of each model; Blocks the number
	// of blocks they form.
	Pairs, Blocks int
}

// Significant reports whether 1.0 lies outside [RatioLo, RatioHi], that is,
// whether A and B differ by more than the measurement's own spread.
func (c Comparison) Significant() bool { return c.RatioLo > 1 || c.RatioHi < 1 }

// String formats the ratio and its spread.
func (c Comparison) String() string {
	s := fmt.Sprintf("B/A latency ratio %.3f (99%% CI %.3f-%.3f; block ratios p10 %.3f, p90 %.3f, MAD %.1f%%; %d blocks, %d runs each)",
		c.Ratio, c.RatioLo, c.RatioHi, c.RatioP10, c.RatioP90, 100*c.RatioMAD, c.Blocks, c.Pairs)
	if c.CPURatio > 0 {
		s += fmt.Sprintf("; CPU-time ratio %.3f", c.CPURatio)
	}
	return s
}

// minCompareBlocks is the least number of blocks before Compare may stop:
// with fewer, the 99% interval of the median spans almost all blocks.
const minCompareBlocks = 12

// compareMaxBlocks is Compare's block cap when MaxRuns is not set. The
// half-width of the interval shrinks with the square root of the blocks:
// block ratios spread by 3% (MAD) need about 200 blocks for ±1%, so the
// cap is set above that and MaxTime is the working limit.
const compareMaxBlocks = 300

// Compare times sessions a and b alternately (ABBA order within blocks of
// opts.BlockRuns runs each, so a slow drift of the machine affects both
// equally) and reports each one's latency and the median block ratio with
// its 99% confidence interval. After the warm-up (settling both sessions
// when opts.Settle is set), timing continues past opts.Runs runs of each,
// 12 blocks and MinTime until the interval's half-width is at most
// opts.Precision of the ratio, or until MaxRuns (default 300 blocks) or
// MaxTime is reached.
func Compare(a, b Session, inA, inB map[string]*graph.Tensor, opts MeasureOptions) (Comparison, error) {
	capSet := opts.MaxRuns > 0 && opts.MaxRuns >= opts.Runs
	opts = opts.withDefaults()
	if !capSet {
		opts.MaxRuns = max(opts.MaxRuns, compareMaxBlocks*opts.BlockRuns)
	}
	for i := 0; i < opts.Warmup; i++ {
		if err := runForTiming(a, inA); err != nil {
			return Comparison{}, fmt.Errorf("A: %w", err)
		}
		if err := runForTiming(b, inB); err != nil {
			return Comparison{}, fmt.Errorf("B: %w", err)
		}
	}
	if opts.Settle {
		err := settle(opts, func() (time.Duration, error) {
			t0 := now()
			if err := runForTiming(a, inA); err != nil {
				return 0, fmt.Errorf("A: %w", err)
			}
			if err := runForTiming(b, inB); err != nil {
				return 0, fmt.Errorf("B: %w", err)
			}
			return now().Sub(t0), nil
		})
		if err != nil {
			return Comparison{}, err
		}
	}
	collectGarbage()
	var ra, rb timedRuns
	start := now()
	for i := 0; ; i++ {
		var err error
		if i%2 == 0 {
			if err = ra.run(a, inA); err == nil {
				err = rb.run(b, inB)
			}
		} else {
			if err = rb.run(b, inB); err == nil {
				err = ra.run(a, inA)
			}
		}
		if err != nil {
			return Comparison{}, err
		}
		n := len(ra.wall)
		if n%opts.BlockRuns != 0 || n < opts.Runs || n < minCompareBlocks*opts.BlockRuns {
			continue
		}
		elapsed := now().Sub(start)
		if elapsed < opts.MinTime && elapsed < opts.MaxTime {
			continue
		}
		c := summarizeComparison(&ra, &rb, opts.BlockRuns)
		if c.precise(opts.Precision) || n >= opts.MaxRuns || elapsed >= opts.MaxTime {
			return c, nil
		}
	}
}

// precise reports whether the 99% interval lies within p of the ratio on
// both sides. Both ends count (not the average half-width): block ratios
// are often skewed, one end of the interval far from the ratio.
func (c Comparison) precise(p float64) bool {
	return c.RatioHi-c.Ratio <= p*c.Ratio && c.Ratio-c.RatioLo <= p*c.Ratio
}

// timedRuns records the wall and CPU time of each run of one session.
type timedRuns struct {
	wall, cpu []time.Duration
}

func (t *timedRuns) run(s Session, in map[string]*graph.Tensor) error {
	c0 := cpuTime()
	t0 := now()
	err := runForTiming(s, in)
	d := now().Sub(t0)
	t.wall = append(t.wall, d)
	t.cpu = append(t.cpu, cpuTime()-c0)
	return err
}

func summarizeComparison(ra, rb *timedRuns, k int) Comparison {
	ratios := blockRatios(ra.wall, rb.wall, k)
	r := append([]float64(nil), ratios...)
	sort.Float64s(r)
	q := func(p float64) float64 { return quantile(r, p) }
	lo, hi := medianCI(len(r))
	med := q(0.5)
	c := Comparison{
		A: summarizeRuns(ra.wall, k), B: summarizeRuns(rb.wall, k),
		Ratio: med, RatioLo: r[lo], RatioHi: r[hi],
		RatioP10: q(0.1), RatioP90: q(0.9), RatioMAD: relMAD(r, med),
		Pairs: len(ra.wall), Blocks: len(r),
	}
	if cr := blockRatios(ra.cpu, rb.cpu, k); len(cr) > 0 {
		sort.Float64s(cr)
		c.CPURatio = quantile(cr, 0.5)
	}
	return c
}

// blockRatios returns, for each complete block of k runs, the fastest run
// of b over the fastest run of a. Blocks in which a's fastest run took no
// time (a clock too coarse, or no CPU time used) are left out.
func blockRatios(a, b []time.Duration, k int) []float64 {
	var out []float64
	for s := 0; s+k <= len(a) && s+k <= len(b); s += k {
		ma, mb := minOf(a[s:s+k]), minOf(b[s:s+k])
		if ma > 0 {
			out = append(out, float64(mb)/float64(ma))
		}
	}
	return out
}

func minOf(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds[1:] {
		m = min(m, d)
	}
	return m
}

// relMAD returns the median absolute deviation of sorted from med,
// relative to med.
func relMAD(sorted []float64, med float64) float64 {
	if med == 0 {
		return 0
	}
	dev := make([]float64, len(sorted))
	for i, v := range sorted {
		dev[i] = math.Abs(v - med)
	}
	sort.Float64s(dev)
	return quantile(dev, 0.5) / med
}

// medianCI returns the ranks (0-based, into n sorted samples) bounding a
// distribution-free 99% confidence interval of the median: the number of
// samples below the median is Binomial(n, 1/2), approximated by a normal
// distribution, z = 2.576.
func medianCI(n int) (lo, hi int) {
	half := 2.576 * math.Sqrt(float64(n)) / 2
	lo = int(math.Floor(float64(n)/2 - half))
	hi = int(math.Ceil(float64(n)/2+half)) - 1
	if lo < 0 {
		lo = 0
	}
	if hi > n-1 {
		hi = n - 1
	}
	return lo, hi
}
