package measure

import (
	"fmt"
	"time"
)

// Bytes is an amount of memory in bytes: the unit of the memory
// objective (Stats.Bytes), kept apart from latencies.
type Bytes int64

// MiB returns b in mebibytes.
func (b Bytes) MiB() float64 { return float64(b) / (1 << 20) }

// String formats b in mebibytes with two decimals ("29.86 MiB").
func (b Bytes) String() string { return fmt.Sprintf("%.2f MiB", b.MiB()) }

// Score returns b as the score a LatencyModel reports in Stats.Median for
// the searches and the environment to minimise: one unit per byte. The
// value is a rank, not a time; Stats.Bytes holds the memory itself.
func (b Bytes) Score() time.Duration { return time.Duration(b) }
