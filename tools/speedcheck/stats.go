package main

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// report prints the medians over all rounds, their ratio, each round's
// median pair ratio and the median of all pair ratios with its interval.
func report(rounds []round, o options) {
	var ta, tb []time.Duration
	var per []string
	for _, r := range rounds {
		ta, tb = append(ta, r.ta...), append(tb, r.tb...)
		per = append(per, fmt.Sprintf("%.3f", median(pairRatios(r.ta, r.tb))))
	}
	ratios := pairRatios(ta, tb)
	slices.Sort(ratios)
	lo, hi := medianRanks(len(ratios), 0.01)
	ma, mb := median(ta), median(tb)
	load := strings.Fields(readLoad())
	fmt.Printf("A %s: median %v\n", o.fileA, ma.Round(time.Microsecond))
	fmt.Printf("B %s: median %v\n", o.fileB, mb.Round(time.Microsecond))
	fmt.Printf("%d pairs in %d rounds of fresh sessions (median pair ratio by round: %s), %d intra-op threads, load average %s\n",
		len(ta), len(rounds), strings.Join(per, " "), o.threads, strings.Join(load[:min(3, len(load))], " "))
	fmt.Printf("speedup %.3f (99%% CI %.3f-%.3f; median of %d pair ratios latency(A)/latency(B)); ratio of medians %.3f\n",
		median(ratios), ratios[lo], ratios[hi], len(ratios), float64(ma)/float64(mb))
}

// pairRatios returns ta[i]/tb[i] for each pair.
func pairRatios(ta, tb []time.Duration) []float64 {
	out := make([]float64, len(ta))
	for i := range ta {
		out[i] = float64(ta[i]) / float64(tb[i])
	}
	return out
}

// readLoad returns the machine's load averages, or "?" where there are
// none to read.
func readLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return string(b)
}

// median returns the middle of xs (the mean of the two middle values for
// an even count), leaving xs unchanged.
func median[T ~int64 | ~float64](xs []T) T {
	s := slices.Sorted(slices.Values(xs))
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}

// medianRanks returns the 0-based ranks, among n sorted samples, of the
// ends of a confidence interval of their median at level 1-alpha that
// holds for any continuous distribution: the lower end is the largest
// rank k with P(Binomial(n, 1/2) <= k) <= alpha/2 (the chance that the
// median lies below that sample), the upper its mirror.
func medianRanks(n int, alpha float64) (lo, hi int) {
	cdf := 0.0
	k := -1
	for j := 0; j <= n; j++ {
		cdf += binomHalf(n, j)
		if cdf > alpha/2 {
			break
		}
		k = j
	}
	lo = max(k, 0)
	return lo, n - 1 - lo
}

// binomHalf returns P(Binomial(n, 1/2) = j).
func binomHalf(n, j int) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
	return math.Exp(lg(n) - lg(j) - lg(n-j) - float64(n)*math.Ln2)
}
