package nn

// Float is the element type of tensors: float32 or float64.
type Float interface {
	float32 | float64
}

// grow returns buf resized to n elements, reusing its storage when the
// capacity suffices. The contents are unspecified.
func grow[F Float](buf []F, n int) []F {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]F, n, n+n/4)
}

// Grow is grow for callers outside the package: it returns buf with n
// elements, reusing its storage when possible; contents are unspecified.
func Grow[F Float](buf []F, n int) []F { return grow(buf, n) }

// GrowZero is Grow followed by zeroing.
func GrowZero[F Float](buf []F, n int) []F {
	buf = grow(buf, n)
	clear(buf)
	return buf
}

// GrowInt32 returns buf resized to n elements, reusing its storage.
func GrowInt32(buf []int32, n int) []int32 {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]int32, n, n+n/4)
}
