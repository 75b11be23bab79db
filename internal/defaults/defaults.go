// Package defaults provides the helper that option structs use to fill in
// fields left unset: the counterpart of cmp.Or for fields where any value
// that is not positive means "use the default".
package defaults

// Positive returns v when it is positive and d otherwise.
func Positive[T ~int | ~int32 | ~int64 | ~float32 | ~float64](v, d T) T {
	if v > 0 {
		return v
	}
	return d
}
