package measure

import "time"

// Speedup returns initial / best, the factor by which a rewrite made a
// model faster; it is 1 while best is not positive (nothing measured yet).
func Speedup(initial, best time.Duration) float64 {
	if best <= 0 {
		return 1
	}
	return float64(initial) / float64(best)
}
