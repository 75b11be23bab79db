package measure

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Compare is a sequential test. Its statistic is the ratio of the median
// latencies of B's and A's timed runs, interleaved: the latency a user
// observes, after over before. The 99% interval of that ratio is a
// percentile bootstrap that resamples whole blocks (a block of runs of
// each model, timed back to back, kept together so that what the machine
// did to both models at that moment stays paired). Compare looks at the
// data at most compareLooks times; each look's interval has error rate
// compareAlpha/compareLooks (Bonferroni), so that all the intervals it
// computes hold the true ratio together with probability at least 99%,
// wherever it stops. It stops at the first look whose interval lies
// wholly below 1 (B faster), wholly above it (B slower) or within
// ±MeasureOptions.Precision of it (no difference that matters), or at the
// cap.
const (
	// compareAlpha is the error rate of the whole sequential test.
	compareAlpha = 0.01
	// compareLooks is the most looks one comparison takes.
	compareLooks = 8
	// bootstrapTail is the number of resamples expected beyond each end
	// of an interval; it sets the number of resamples of a look.
	bootstrapTail = 10
	// bootstrapUnit is the runs of each model in the least block (a
	// slow model's, see blockRunsFor) and in CompareMany's units, AABB
	// then BBAA, which the warm-up's half units (AB) make whole. Runs
	// alternated one by one (ABBA) put half of each model's runs straight
	// after the other model's, its caches holding the other's weights,
	// and the median moved with them: HF BERT's written model (9 ms a
	// run), 1.35-1.38x timed in blocks of eight in a row by the
	// independent check, read 1.30-1.33x run by run and 1.35-1.36x two by
	// two (AABB BBAA), where a quarter of the runs follow a switch
	// (docs/perf.md, "Two runs in a row"); two by two still read HF
	// BERT's later written model 5% below eight in a row (see
	// inRowFirstLook).
	bootstrapUnit = 2
)

// Verdict is what a comparison concluded about B against A.
type Verdict int

// The verdicts of Compare.
const (
	// Undecided: the cap (runs or time) came before a clear interval.
	Undecided Verdict = iota
	// Faster: the 99% interval of latency(B)/latency(A) lies below 1.
	Faster
	// Slower: the interval lies above 1.
	Slower
	// Equivalent: the interval lies within the margin of 1.
	Equivalent
	// NotSlower: the interval's upper end lies within the margin above
	// 1 (its lower end anywhere below); only a comparison asked to stop
	// there (MeasureOptions.StopNotSlower) says it.
	NotSlower
)

// String returns "undecided", "faster", "slower", "equivalent" or "not
// slower".
func (v Verdict) String() string {
	return [...]string{"undecided", "faster", "slower", "equivalent", "not slower"}[v]
}

// verdictOf reads an interval of latency(B)/latency(A): below 1 first (an
// interval both below 1 and within the margin shows B faster), then above
// 1, then within margin of 1.
func verdictOf(lo, hi, margin float64) Verdict {
	switch {
	case hi < 1:
		return Faster
	case lo > 1:
		return Slower
	case lo >= 1-margin && hi <= 1+margin:
		return Equivalent
	}
	return Undecided
}

// lookSchedule places Compare's looks: the first when the least runs and
// time are reached, then at block counts growing geometrically so that
// the compareLooks-th falls on the cap. A look is also forced when the
// time runs out, and it is then the last; no more than compareLooks are
// ever taken.
type lookSchedule struct {
	capBlocks int
	next      int
	growth    float64
	taken     int
}

// due reports whether to look at blocks complete blocks, given whether
// the first look's conditions are met (ready) and whether a cap is hit
// (final), and whether that look is the last one.
func (s *lookSchedule) due(blocks int, ready, final bool) (look, last bool) {
	if !ready && !final {
		return false, false
	}
	if s.taken > 0 && blocks < s.next && !final {
		return false, false
	}
	if s.taken == 0 {
		s.growth = 1
		if s.capBlocks > blocks {
			s.growth = math.Pow(float64(s.capBlocks)/float64(blocks), 1/float64(compareLooks-1))
		}
	}
	s.taken++
	s.next = min(s.capBlocks, max(blocks+1, int(math.Ceil(float64(blocks)*s.growth))))
	return true, final || blocks >= s.capBlocks || s.taken >= compareLooks
}

// timeCap returns the block cap the looks are spread up to, given the
// runs' cap capBlocks and that blocks blocks took elapsed of maxTime: the
// blocks that fit in maxTime at that pace, when fewer (at least blocks).
// A look schedule growing towards the 1,000-block cap placed the second
// look of ViT-B/16's batch-2 sweep (blocks of 0.7 s, first look after 9)
// at 18 blocks, past its 10 s cap: it had two looks, the first and the
// one forced at the cap, where spreading them to 14 blocks gives it six.
func timeCap(capBlocks, blocks int, elapsed, maxTime time.Duration) int {
	if elapsed <= 0 || maxTime <= 0 {
		return capBlocks
	}
	byTime := int(float64(blocks) * float64(maxTime) / float64(elapsed))
	return min(capBlocks, max(blocks, byTime))
}

// lookLevel is the two-sided error rate of one look's interval.
const lookLevel = compareAlpha / compareLooks

// smallGainLevel is the two-sided error rate of the interval whose low
// end the MinGain stop reads (MeasureOptions.MinGain: B faster by less
// than the gain asked for, at most). That stop keeps the model the
// caller had, the original at never-slower and the model chosen so far
// in a measured pass's trial, so a wrong stop costs a gain and never
// writes a slower model; the verdicts, and the 99% level of every
// interval that decides one, are unchanged. At lookLevel (0.125% a look)
// a sub-millisecond detector whose rewrite gained nothing, 1.005x (99% CI
// 0.975-1.032), and MobileNetV3-Small, 1.007x (0.984-1.025), ran all
// eight looks, 10 s each, to the cap (docs/perf.md, "A cheaper sweep").
// A variable only so that a test can run the strict level against it.
var smallGainLevel = 0.05

// layout is how a comparison's runs were timed: in blocks of unit runs of
// each model (the bootstrap's resampling unit), over pairs session pairs
// taking turns of turn blocks (see pairOf).
type layout struct{ unit, pairs, turn int }

// ratioInterval returns the interval of median(b)/median(a) at two-sided
// error rate alpha from the runs in a and b (equal in number, timed as
// lay says), and loose, its low end at smallGainLevel (at alpha when
// alpha is the larger): the alpha/2 and 1-alpha/2 quantiles of the ratio
// over bootstrap resamples, each drawing the session pairs with replacement
// and then, for each pair drawn, as many of its blocks (with replacement)
// as it has. Blocks, not runs, are resampled: the runs of one block share
// what the machine did while that model ran, a moment the other model's
// block did not see. For one median and one pair, this percentile
// interval is close to the distribution-free one from order statistics;
// it needs enough resamples to place about ten beyond each end. The
// interval is then widened: by pairs/(pairs-1) in variance when there are
// several pairs (resampling few understates their spread), and by the
// long-run inflation of the variance (see longRunInflation), at least the
// inflation floor an earlier look of the same comparison found, which is
// returned updated.
func ratioInterval(a, b []time.Duration, lay layout, alpha, floor float64) (lo, hi, loose, inflation float64) {
	pairs := lay.pairs
	units := min(len(a), len(b)) / lay.unit
	if units < 2 || units < pairs*lay.turn {
		return 0, math.Inf(1), 0, floor
	}
	n := units * lay.unit
	sa, sb := sortUnits(a[:n], lay.unit), sortUnits(b[:n], lay.unit)
	clusters := make([][]int32, pairs)
	for u := range units {
		p := pairOf(u, lay.turn, pairs)
		clusters[p] = append(clusters[p], int32(u))
	}
	r := rand.NewPCG(uint64(n), 0x5eedb007)
	w := make([]int32, units)
	ratios := make([]float64, int(math.Ceil(bootstrapTail/(alpha/2))))
	for i := range ratios {
		clear(w)
		total := drawUnits(r, w, clusters) * lay.unit
		ma, mb := sa.weightedMedian(w, total), sb.weightedMedian(w, total)
		if ma <= 0 {
			return 0, math.Inf(1), 0, floor
		}
		ratios[i] = mb / ma
	}
	slices.Sort(ratios)
	lo, hi = quantile(ratios, alpha/2), quantile(ratios, 1-alpha/2)
	loose = quantile(ratios, max(alpha, smallGainLevel)/2)
	inflation = max(floor, longRunInflation(a[:n], b[:n], lay))
	widen := inflation
	if pairs > 1 {
		widen *= float64(pairs) / float64(pairs-1)
	}
	if widen > 1 {
		// Widen around the measured ratio: distances in log space scale
		// with the standard deviation.
		r0, s := quantile(sb.v, 0.5)/quantile(sa.v, 0.5), math.Sqrt(widen)
		lo, hi, loose = r0*math.Pow(lo/r0, s), r0*math.Pow(hi/r0, s), r0*math.Pow(loose/r0, s)
	}
	return lo, hi, loose, inflation
}

// pairOf returns the session pair that block u was timed on, pairs
// taking turns of turn blocks.
func pairOf(u, turn, pairs int) int { return u / turn % pairs }

// The bootstrap takes blocks as independent. On a busy machine they
// are not: for seconds at a time, one model's runs can be slowed more than
// the other's (its threads sharing a core with another process), and
// identical models then drift apart and back. longRunInflation detects
// it: the variance of the mean log pair ratio over batches of consecutive
// pairs, as long as leaves at least longRunBatches of them, against the
// variance over blocks, both per pair. Without such drift the two
// agree and their ratio rarely exceeds longRunGate; with it, the ratio is
// the factor by which the bootstrap's variance falls short, and the
// interval is widened by its square root. Over several session pairs,
// each pair's mean log ratio is taken out first: how far one pair's
// sessions stand from another's is what the bootstrap's resampling of
// pairs covers, and in turns of many blocks it would read as drift (eight
// pairs of identical models whose sessions ran at 1 or 2 ms had their
// intervals widened about 40-fold). An early look sees only a few
// slow spells, so a comparison keeps the largest inflation any of its
// looks found. In simulations with model-specific slow spells of up to
// 100 runs, the bootstrap's 98% interval of one look left the true ratio
// out 28-62% of the time, widened 1-2%; over a whole sequential test of
// identical models, 2% of the tests ended on a wrong verdict.
const (
	longRunBatches = 6
	longRunGate    = 1.5
)

// longRunInflation returns the variance ratio described above, or 1 when
// it is at most longRunGate or there are too few pairs for batches longer
// than a block; the runs were timed as lay says.
func longRunInflation(a, b []time.Duration, lay layout) float64 {
	pairs := lay.pairs
	x := make([]float64, min(len(a), len(b)))
	for i := range x {
		if a[i] <= 0 || b[i] <= 0 {
			return 1
		}
		x[i] = math.Log(float64(b[i]) / float64(a[i]))
	}
	if pairs > 1 {
		sum, count := make([]float64, pairs), make([]float64, pairs)
		of := make([]int, len(x))
		for i, v := range x {
			of[i] = pairOf(i/lay.unit, lay.turn, pairs)
			sum[of[i]] += v
			count[of[i]]++
		}
		for i, p := range of {
			x[i] -= sum[p] / count[p]
		}
	}
	size := lay.unit
	for 2*size*longRunBatches <= len(x) {
		size *= 2
	}
	base := batchVariance(x, lay.unit)
	if size == lay.unit || base <= 0 {
		return 1
	}
	if f := batchVariance(x, size) / base; f > longRunGate {
		return f
	}
	return 1
}

// batchVariance returns size times the variance of the means of the
// complete batches of size consecutive values of x: the variance of one
// value that those means imply.
func batchVariance(x []float64, size int) float64 {
	g := len(x) / size
	means := make([]float64, g)
	for j := range means {
		for _, v := range x[j*size : (j+1)*size] {
			means[j] += v / float64(size)
		}
	}
	var mean, ss float64
	for _, m := range means {
		mean += m / float64(g)
	}
	for _, m := range means {
		ss += (m - mean) * (m - mean)
	}
	return ss / float64(g-1) * float64(size)
}

// drawUnits adds to w one bootstrap resample's count of each unit and
// returns the number of units drawn: clusters (the units of each session
// pair) are drawn with replacement, and for each cluster drawn as many of
// its units as it has, with replacement. Random numbers are scaled to a
// range by a multiplication of their low or high 32 bits: each outcome's
// chance differs from uniform by less than 2^-32.
func drawUnits(r *rand.PCG, w []int32, clusters [][]int32) int {
	pick := func(x uint64, n int) int { return int(x * uint64(n) >> 32) }
	total := 0
	for range clusters {
		c := clusters[pick(r.Uint64()&0xffffffff, len(clusters))]
		for j := 0; j < len(c); j += 2 {
			y := r.Uint64()
			w[c[pick(y&0xffffffff, len(c))]]++
			if j+1 < len(c) {
				w[c[pick(y>>32, len(c))]]++
			}
		}
		total += len(c)
	}
	return total
}

// unitRuns holds one model's runs in ascending order with the resampling
// unit each belongs to.
type unitRuns struct {
	v    []float64
	unit []int32
}

// sortUnits sorts the runs d, timed in blocks of unit runs, keeping each
// run's block.
func sortUnits(d []time.Duration, unit int) unitRuns {
	idx := make([]int, len(d))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return cmp.Compare(d[i], d[j]) })
	s := unitRuns{v: make([]float64, len(d)), unit: make([]int32, len(d))}
	for r, i := range idx {
		s.v[r], s.unit[r] = float64(d[i]), int32(i/unit)
	}
	return s
}

// weightedMedian returns the median of the runs when the runs of unit u
// count w[u] times; n is the total count (the number of runs).
func (s unitRuns) weightedMedian(w []int32, n int) float64 {
	lower, upper := (n+1)/2, n/2+1
	c := 0
	var lv float64
	found := false
	for i, x := range s.v {
		c += int(w[s.unit[i]])
		if !found && c >= lower {
			lv, found = x, true
		}
		if c >= upper {
			return (lv + x) / 2
		}
	}
	return lv
}
