package measure

import (
	"fmt"
	"math"
	"sort"
	"time"

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
	// MaxRuns caps the timed runs when the spread stays high (default 10*Runs).
	MaxRuns int
	// MaxSpread is the target relative spread (MAD / median); timing
	// continues past Runs until it is met or a cap is hit (default 0.05).
	MaxSpread float64
	// MaxTime caps the total time spent timing (default 20s).
	MaxTime time.Duration
}

// DefaultMeasureOptions returns the settings used when a caller has no
// opinion: 3 warm-ups, at least 10 runs, 5% spread target, 20 s cap.
func DefaultMeasureOptions() MeasureOptions {
	return MeasureOptions{Warmup: 3}.withDefaults()
}

// withDefaults fills zero fields other than Warmup with defaults.
func (o MeasureOptions) withDefaults() MeasureOptions {
	if o.Warmup < 0 {
		o.Warmup = 0
	}
	if o.Runs <= 0 {
		o.Runs = 10
	}
	if o.MaxRuns < o.Runs {
		o.MaxRuns = 10 * o.Runs
	}
	if o.MaxSpread <= 0 {
		o.MaxSpread = 0.05
	}
	if o.MaxTime <= 0 {
		o.MaxTime = 20 * time.Second
	}
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
	// Stable reports whether MAD/median reached MaxSpread before a cap.
	Stable bool
}

// RelSpread returns MAD / median.
func (s Stats) RelSpread() float64 {
	if s.Median <= 0 {
		return 0
	}
	return float64(s.MAD) / float64(s.Median)
}

// String formats the stats as "median 12.3ms (p10 12.1ms, p90 13.0ms, n=20)".
func (s Stats) String() string {
	return fmt.Sprintf("median %v (p10 %v, p90 %v, MAD %.1f%%, n=%d)",
		round(s.Median), round(s.P10), round(s.P90), 100*s.RelSpread(), s.N)
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

// Measure times s on inputs: Warmup discarded runs, then at least Runs
// timed runs, continuing until the relative spread is under MaxSpread or
// MaxRuns / MaxTime is reached. progress, if non-nil, is called after each
// timed run.
func Measure(s Session, inputs map[string]*graph.Tensor, opts MeasureOptions, progress func(done int)) (Stats, error) {
	opts = opts.withDefaults()
	for i := 0; i < opts.Warmup; i++ {
		if err := runForTiming(s, inputs); err != nil {
			return Stats{}, err
		}
	}
	start := now()
	var samples []time.Duration
	for {
		t0 := now()
		if err := runForTiming(s, inputs); err != nil {
			return Stats{}, err
		}
		samples = append(samples, now().Sub(t0))
		if progress != nil {
			progress(len(samples))
		}
		if len(samples) < opts.Runs {
			continue
		}
		st := Summarize(append([]time.Duration(nil), samples...))
		if st.RelSpread() <= opts.MaxSpread {
			st.Stable = true
			return st, nil
		}
		if len(samples) >= opts.MaxRuns || now().Sub(start) >= opts.MaxTime {
			return st, nil
		}
	}
}
