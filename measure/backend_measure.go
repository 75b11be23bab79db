package measure

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/xrl-dev/xrl/internal/defaults"

	"github.com/xrl-dev/xrl/graph"
)

// now is the clock used for timing; tests replace it with a fake one.
var now = time.Now

// MeasureOptions controls latency measurement.
type MeasureOptions struct {
	// Warmup runs are executed and discarded first (0 = none;
	// DefaultMeasureOptions uses 3).
	Warmup int
	// Runs is the minimum number of timed runs (default 10).
	Runs int
	// MaxRuns caps the timed runs when the spread stays high (default
	// 10*Runs, at least 50 blocks).
	MaxRuns int
	// MaxSpread is the target relative spread (MAD / median); timing
	// continues past Runs until it is met or a cap is hit (default 0.05).
	MaxSpread float64
	// MaxTime caps the total time spent timing (default 20s).
	MaxTime time.Duration
	// BlockRuns is the number of consecutive runs (of each model, in
	// Compare) that form one block: Measure's block minima and Compare's
	// looks count whole blocks (default 8).
	BlockRuns int
	// Precision is Compare's equivalence margin: its sequential test stops
	// with "equivalent" once the 99% confidence interval of the ratio lies
	// within ±Precision of 1 (default 0.01).
	Precision float64
	// Resolution, when set, keeps a comparison whose interval shows B
	// faster going until that interval also lies within ±Resolution of
	// the ratio (log-symmetric), or the cap, so that the speedup it
	// reports is that precise and not only the decision; 0 stops at the
	// decision.
	Resolution float64
	// ResolutionTime bounds the pursuit of Resolution: once a look shows
	// B faster after this much timing, the comparison stops there, its
	// interval as wide as it is (default DefaultResolutionTime). The
	// corpus BERT, shown 1.32x faster at the first look, ran 30 s more to
	// narrow a drift-widened interval to ±2%; at 3 s the corpus encoder's
	// never-slower comparison took 1.5 s when its first interval was
	// narrow enough and 4.5-5 s when it was not (half the runs). At 1.5
	// s a model of 9 ms or more (HF BERT) stopped at its first look,
	// however wide, and the figure optimize prints strayed from the
	// independent check's with the interval's width: over 174 corpus
	// runs, printed within 3% of the check in 95% of those whose interval
	// was within ±2%, 88% within ±4% and 72% of the wider ones (docs/perf.md,
	// "Time to resolve the printed figure").
	ResolutionTime time.Duration
	// StopNotSlower also stops a comparison at a look whose interval lies
	// below 1+Precision, verdict NotSlower, for callers that act only on
	// B shown slower (the shape sweep): a swept shape 2% faster, its
	// interval across 1, otherwise ran to the time cap (10 s of the
	// PaddleOCR-sized MobileNetV3 at batch 8).
	StopNotSlower bool
	// Futility, when set, stops a comparison early, undecided, when B is
	// clearly slower: its ratio of medians, and the median over blocks of
	// the ratio of their fastest runs, exceed 1+Futility after a
	// third of the first look's blocks, or after two thirds (one session
	// pair only; on the corpus encoder a folded model 18% slower read
	// under 5% slower after a third, in the machine's fast mode, and ran
	// to the 5 s cap). For callers that only act on B
	// shown faster (a measured pass, never-slower): stopping without a
	// verdict never makes a wrong one, so the test's 99% level holds. A
	// measured pass 20% slower than the model chosen took a whole first
	// look (1.3 s on the corpus encoder) to be left out.
	Futility float64
	// MinGain, when set, stops a comparison, undecided, at a look whose
	// interval shows B faster by less than MinGain at most (its speedup's
	// upper end below 1+MinGain; over several session pairs, below
	// 1+ShortGainMargin at least), for callers that act only on B shown
	// faster and find a smaller gain not worth acting on (never-slower:
	// a model no faster than the original is not worth a different file).
	// The PaddleOCR-sized MobileNetV3's rewritten model, 0.997x (99% CI
	// 0.988-1.006), ran to the 10 s cap. Stopping without a verdict never
	// makes a wrong one.
	MinGain float64
	// StopDominated, in CompareMany, also stops a candidate at a look
	// whose interval lies wholly above that of another candidate shown
	// faster (its RatioLo above the other's RatioHi; Comparison.Dominated),
	// for callers that keep the fastest of those shown faster (the
	// measured passes): it is slower than that one. On HF BERT the
	// folded model with the fusions, 0.737 (99% CI 0.675-0.787), was
	// decided at a look where the two others read 0.935-1.002 and
	// 0.926-1.049, and those ran on to their caps.
	StopDominated bool
	// GainMargin, when set, is the least gain a Faster verdict must show
	// at its interval's low end (speedup) to end the comparison before
	// its cap, over several session pairs ShortGainMargin at least: for
	// callers that act only on a gain that large (never-slower, see
	// shownFaster). A faster B that does not show it yet is timed on, so
	// that a real gain has the time to narrow its interval past the
	// margin. The LLaMA-style decoder, 1.035x (99% CI 1.008-1.067) at
	// the look that ended its comparison, had its original written.
	GainMargin float64
	// MinTime is the least time spent timing, overriding MaxRuns (not
	// MaxTime); zero means none. A sub-millisecond model would otherwise
	// be timed for a few milliseconds, in which one disturbance, or a
	// session not yet warm, decides the figure.
	MinTime time.Duration
	// Settle continues the warm-up, after the Warmup runs, in blocks of
	// BlockRuns runs until the latency has stopped falling (see settle).
	Settle bool
	// KeepGarbage skips the garbage collection Measure runs before it
	// times (so that a collection the warm-up's garbage would start does
	// not fall among the timed runs). The cost model's single ops, timed
	// for a few milliseconds each, set it: a collection of an optimize
	// run's heap took about 9 ms, and the corpus encoder's rollout timed
	// 141 op configurations (1.3 s of its 4 s).
	KeepGarbage bool
}

// DefaultMeasureOptions returns the settings used when a caller has no
// opinion: 3 warm-ups, then warm-up until the latency settles, at least 10
// runs and 250 ms of timing, 5% spread target, 20 s cap.
func DefaultMeasureOptions() MeasureOptions {
	return MeasureOptions{Warmup: 3, Settle: true, MinTime: DefaultMinTime}.withDefaults()
}

// DefaultMinTime is the least timing time of DefaultMeasureOptions.
const DefaultMinTime = 250 * time.Millisecond

// DefaultPrecision is MeasureOptions.Precision's default: the 1%
// equivalence margin.
const DefaultPrecision = 0.01

// DefaultResolutionTime is MeasureOptions.ResolutionTime's default.
const DefaultResolutionTime = 3 * time.Second

// withDefaults fills zero fields other than Warmup with defaults.
func (o MeasureOptions) withDefaults() MeasureOptions {
	if o.Warmup < 0 {
		o.Warmup = 0
	}
	o.Runs = defaults.Positive(o.Runs, 10)
	o.BlockRuns = defaults.Positive(o.BlockRuns, 8)
	if o.MaxRuns < o.Runs {
		o.MaxRuns = max(10*o.Runs, 50*o.BlockRuns)
	}
	o.MaxSpread = defaults.Positive(o.MaxSpread, 0.05)
	o.Precision = defaults.Positive(o.Precision, DefaultPrecision)
	o.MaxTime = defaults.Positive(o.MaxTime, 20*time.Second)
	o.ResolutionTime = defaults.Positive(o.ResolutionTime, DefaultResolutionTime)
	return o
}

// Stats summarises repeated latency samples.
type Stats struct {
	N      int
	Median time.Duration
	P10    time.Duration
	P90    time.Duration
	Min    time.Duration
	// MAD is the median absolute deviation from the median.
	MAD time.Duration
	// Steady is the median over blocks of BlockRuns consecutive runs of
	// each block's fastest run: the latency on a machine that nothing
	// else disturbs, which is what a user of an idle machine sees. Other
	// processes only ever add time to a run, so the fastest run of a short
	// block filters their interference out. Zero when there is no
	// complete block.
	Steady time.Duration
	// SteadyMAD is the median absolute deviation of the block minima
	// from Steady.
	SteadyMAD time.Duration
	// Stable reports whether the relative MAD of the runs, or of the block
	// minima, reached MaxSpread before a cap.
	Stable bool
	// Bytes is the model's memory when the scorer is a memory objective
	// (MemoryObjective, or the memory half of Combined); 0 for latency
	// models. Median then holds a score, not a time (MemoryScore).
	Bytes Bytes
}

// RelSpread returns MAD / median.
func (s Stats) RelSpread() float64 {
	if s.Median <= 0 {
		return 0
	}
	return float64(s.MAD) / float64(s.Median)
}

// SteadySpread returns SteadyMAD / Steady (0 without blocks).
func (s Stats) SteadySpread() float64 {
	if s.Steady <= 0 {
		return 0
	}
	return float64(s.SteadyMAD) / float64(s.Steady)
}

// String formats the stats as "median 12.3ms (p10 12.1ms, p90 13.0ms, MAD
// 1.2%, n=20); steady 12.0ms (MAD 0.4%)".
func (s Stats) String() string {
	str := fmt.Sprintf("median %v (p10 %v, p90 %v, MAD %.1f%%, n=%d)",
		round(s.Median), round(s.P10), round(s.P90), 100*s.RelSpread(), s.N)
	if s.Steady > 0 {
		str += fmt.Sprintf("; steady %v (MAD %.1f%%)", round(s.Steady), 100*s.SteadySpread())
	}
	return str
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= 100*time.Millisecond:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(100 * time.Nanosecond)
}

// Summarize computes Stats from raw samples (which it sorts in place).
func Summarize(samples []time.Duration) Stats {
	if len(samples) == 0 {
		return Stats{}
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	med := quantile(samples, 0.5)
	dev := make([]time.Duration, len(samples))
	for i, s := range samples {
		d := s - med
		if d < 0 {
			d = -d
		}
		dev[i] = d
	}
	sort.Slice(dev, func(i, j int) bool { return dev[i] < dev[j] })
	return Stats{
		N: len(samples), Median: med, Min: samples[0],
		P10: quantile(samples, 0.1), P90: quantile(samples, 0.9),
		MAD: quantile(dev, 0.5),
	}
}

// summarizeRuns computes Stats from samples in run order (left unchanged),
// including the block statistics over blocks of k runs.
func summarizeRuns(samples []time.Duration, k int) Stats {
	st := Summarize(append([]time.Duration(nil), samples...))
	var mins []time.Duration
	for s := 0; s+k <= len(samples); s += k {
		mins = append(mins, minOf(samples[s:s+k]))
	}
	if len(mins) > 0 {
		m := Summarize(mins)
		st.Steady, st.SteadyMAD = m.Median, m.MAD
	}
	return st
}

// quantile interpolates linearly between the elements of sorted.
func quantile[T ~int64 | ~float64](sorted []T, q float64) T {
	if len(sorted) == 1 {
		return sorted[0]
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	f := pos - float64(lo)
	return T(float64(sorted[lo])*(1-f) + float64(sorted[hi])*f)
}

// Measure times s on inputs: Warmup discarded runs (continued until the
// latency settles when Settle is set), then at least Runs timed runs and
// MinTime of timing, continuing (in whole blocks of BlockRuns runs) until
// the relative spread of the runs, or of the block minima once there are
// five blocks, is under MaxSpread, or MaxRuns (once MinTime has passed) or
// MaxTime is reached. progress, if non-nil, is called after each timed run.
func Measure(s Session, inputs map[string]*graph.Tensor, opts MeasureOptions, progress func(done int)) (Stats, error) {
	defer onOneThread()()
	opts = opts.withDefaults()
	for i := 0; i < opts.Warmup; i++ {
		if err := runForTiming(s, inputs); err != nil {
			return Stats{}, err
		}
	}
	if opts.Settle {
		err := settle(opts, func() (time.Duration, error) {
			t0 := now()
			err := runForTiming(s, inputs)
			return now().Sub(t0), err
		}, 0)
		if err != nil {
			return Stats{}, err
		}
	}
	if !opts.KeepGarbage {
		collectGarbage()
	}
	start := now()
	var samples []time.Duration
	for {
		d, err := timedRun(s, inputs)
		if err != nil {
			return Stats{}, err
		}
		samples = append(samples, d)
		if progress != nil {
			progress(len(samples))
		}
		if len(samples) < opts.Runs || len(samples)%opts.BlockRuns != 0 {
			continue
		}
		elapsed := now().Sub(start)
		if elapsed < opts.MinTime && elapsed < opts.MaxTime {
			continue
		}
		st := summarizeRuns(samples, opts.BlockRuns)
		if st.RelSpread() <= opts.MaxSpread || (len(samples) >= minMeasureBlocks*opts.BlockRuns && st.SteadySpread() <= opts.MaxSpread) {
			st.Stable = true
			return st, nil
		}
		if len(samples) >= opts.MaxRuns || elapsed >= opts.MaxTime {
			return st, nil
		}
	}
}

// minMeasureBlocks is the least number of blocks whose minima Measure
// trusts as a stable estimate.
const minMeasureBlocks = 5
