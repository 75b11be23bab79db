package cli

import (
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// allowNegative is the flag annotation that lets a numeric flag take
// negative values (no flag of xrl needs it today).
const allowNegative = "xrl-allow-negative"

// checkNumericFlags rejects, for every numeric flag of c that was set on
// the command line (ints, floats, durations and their slices), values
// that are NaN, infinite or negative, naming the flag. It runs before any
// command (the root's PersistentPreRunE), so commands' own checks of
// ranges see only finite, non-negative numbers.
func checkNumericFlags(c *cobra.Command) error {
	var first error
	c.Flags().Visit(func(f *pflag.Flag) {
		if first == nil {
			first = checkNumericFlag(f)
		}
	})
	return first
}

// checkNumericFlag checks one flag's value (see checkNumericFlags).
func checkNumericFlag(f *pflag.Flag) error {
	var items []string
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
		"float32", "float64", "duration":
		items = []string{f.Value.String()}
	case "intSlice", "int32Slice", "int64Slice", "uintSlice", "float32Slice", "float64Slice", "durationSlice":
		sv, ok := f.Value.(pflag.SliceValue)
		if !ok {
			return nil
		}
		items = sv.GetSlice()
	default:
		return nil
	}
	neg := len(f.Annotations[allowNegative]) > 0
	for _, s := range items {
		x, err := flagNumber(f.Value.Type(), s)
		if err != nil {
			return usagef("--%s %q: not a number", f.Name, s)
		}
		switch {
		case math.IsNaN(x):
			return usagef("--%s NaN: want a number", f.Name)
		case math.IsInf(x, 0):
			return usagef("--%s %s: want a finite number", f.Name, s)
		case x < 0 && !neg:
			return usagef("--%s %s: must not be negative", f.Name, s)
		}
	}
	return nil
}

// flagNumber parses one printed value of a numeric flag of type typ.
func flagNumber(typ, s string) (float64, error) {
	if typ == "duration" || typ == "durationSlice" {
		d, err := time.ParseDuration(s)
		return float64(d), err
	}
	return strconv.ParseFloat(s, 64)
}
