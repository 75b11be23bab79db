package measure

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

// Comparison is the result of an interleaved A/B latency measurement.
type Comparison struct {
	A, B Stats
	// Ratio is the median over run pairs of latency(B) / latency(A): below
	// 1 means B is faster.
	Ratio float64
	// RatioLo and RatioHi bound a distribution-free 99% confidence
	// interval of the median ratio (from order statistics of the per-pair
	// ratios): the stated spread of Ratio.
	RatioLo, RatioHi float64
	// RatioP10 and RatioP90 bound the middle 80% of the per-pair ratios
	// (how noisy single runs are).
	RatioP10, RatioP90 float64
	Pairs              int
}

// Significant reports whether 1.0 lies outside [RatioLo, RatioHi], that is,
// whether A and B differ by more than the measurement's own spread.
func (c Comparison) Significant() bool { return c.RatioLo > 1 || c.RatioHi < 1 }

// String formats the ratio and its spread.
func (c Comparison) String() string {
	return fmt.Sprintf("B/A latency ratio %.3f (99%% CI %.3f-%.3f; single pairs p10 %.3f, p90 %.3f; %d interleaved pairs)",
		c.Ratio, c.RatioLo, c.RatioHi, c.RatioP10, c.RatioP90, c.Pairs)
}

// Compare times sessions a and b alternately, run by run (ABBA order, so a
// slow drift of the machine affects both equally), and reports each one's
// latency and the distribution of per-pair ratios. opts.Runs is the number of
// pairs (at least; more until the ratio spread is under MaxSpread or a cap).
func Compare(a, b Session, inA, inB map[string]*graph.Tensor, opts MeasureOptions) (Comparison, error) {
	opts = opts.withDefaults()
	for i := 0; i < opts.Warmup; i++ {
		if err := runForTiming(a, inA); err != nil {
			return Comparison{}, fmt.Errorf("A: %w", err)
		}
		if err := runForTiming(b, inB); err != nil {
			return Comparison{}, fmt.Errorf("B: %w", err)
		}
	}
	timeRun := func(s Session, in map[string]*graph.Tensor) (time.Duration, error) {
		t0 := now()
		err := runForTiming(s, in)
		return now().Sub(t0), err
	}
	var ta, tb []time.Duration
	var ratios []float64
	start := now()
	for i := 0; ; i++ {
		var da, db time.Duration
		var err error
		if i%2 == 0 {
			if da, err = timeRun(a, inA); err == nil {
				db, err = timeRun(b, inB)
			}
		} else {
			if db, err = timeRun(b, inB); err == nil {
				da, err = timeRun(a, inA)
			}
		}
		if err != nil {
			return Comparison{}, err
		}
		ta, tb = append(ta, da), append(tb, db)
		ratios = append(ratios, float64(db)/float64(da))
		if len(ratios) < opts.Runs {
			continue
		}
		c := summarizeComparison(ta, tb, ratios)
		if (c.RatioHi-c.RatioLo)/2 <= opts.MaxSpread*c.Ratio || len(ratios) >= opts.MaxRuns || now().Sub(start) >= opts.MaxTime {
			return c, nil
		}
	}
}

func summarizeComparison(ta, tb []time.Duration, ratios []float64) Comparison {
	r := append([]float64(nil), ratios...)
	sort.Float64s(r)
	q := func(p float64) float64 { return quantile(r, p) }
	lo, hi := medianCI(len(r))
	return Comparison{
		A:     Summarize(append([]time.Duration(nil), ta...)),
		B:     Summarize(append([]time.Duration(nil), tb...)),
		Ratio: q(0.5), RatioLo: r[lo], RatioHi: r[hi],
		RatioP10: q(0.1), RatioP90: q(0.9), Pairs: len(r),
	}
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
