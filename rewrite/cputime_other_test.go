//go:build !unix

package rewrite

import "time"

// cpuTime is not available: benchmarks report zero CPU time.
func cpuTime() time.Duration { return 0 }
