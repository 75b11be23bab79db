package measure

import "fmt"

// Bytes is an amount of memory in bytes: the unit of a MemoryModel, kept
// apart from latencies (time.Duration).
type Bytes int64

// MiB returns b in mebibytes.
func (b Bytes) MiB() float64 { return float64(b) / (1 << 20) }

// String formats b in mebibytes with two decimals ("29.86 MiB").
func (b Bytes) String() string { return fmt.Sprintf("%.2f MiB", b.MiB()) }
