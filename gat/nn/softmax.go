package nn

import "math"

// MaskedLogit is the logit given to invalid actions.
const MaskedLogit = -1e8

// SegmentSoftmax applies a softmax within each segment, separately for
// each of the cols columns: x and y are E×cols tables whose rows
// [off[s], off[s+1]) form segment s (the incoming edges of receiver s).
// Empty segments are allowed.
func SegmentSoftmax[F Float](x []F, cols int, off []int32, y []F) {
	for s := 0; s+1 < len(off); s++ {
		segmentSoftmax(x, cols, int(off[s]), int(off[s+1]), y)
	}
}

func segmentSoftmax[F Float](x []F, cols, lo, hi int, y []F) {
	if lo == hi {
		return
	}
	for c := 0; c < cols; c++ {
		m := x[lo*cols+c]
		for e := lo + 1; e < hi; e++ {
			m = max(m, x[e*cols+c])
		}
		var z F
		for e := lo; e < hi; e++ {
			v := F(math.Exp(float64(x[e*cols+c] - m)))
			y[e*cols+c] = v
			z += v
		}
		for e := lo; e < hi; e++ {
			y[e*cols+c] /= z
		}
	}
}

// SegmentSoftmaxBackward writes dx = y ⊙ (dy - Σ_segment y ⊙ dy) for the
// output y of SegmentSoftmax. dy and dx may be the same slice.
func SegmentSoftmaxBackward[F Float](y, dy []F, cols int, off []int32, dx []F) {
	for s := 0; s+1 < len(off); s++ {
		segmentSoftmaxBackward(y, dy, cols, int(off[s]), int(off[s+1]), dx)
	}
}

func segmentSoftmaxBackward[F Float](y, dy []F, cols, lo, hi int, dx []F) {
	for c := 0; c < cols; c++ {
		var d F
		for e := lo; e < hi; e++ {
			d += y[e*cols+c] * dy[e*cols+c]
		}
		for e := lo; e < hi; e++ {
			dx[e*cols+c] = y[e*cols+c] * (dy[e*cols+c] - d)
		}
	}
}

// MaskLogits sets logits[i] to MaskedLogit wherever mask[i] is false.
func MaskLogits[F Float](logits []F, mask []bool) {
	for i, ok := range mask {
		if !ok {
			logits[i] = MaskedLogit
		}
	}
}

// LogSoftmax writes logp = z - log Σ exp(z). Masked logits (MaskedLogit)
// get probability exactly 0 in float arithmetic.
func LogSoftmax[F Float](z, logp []F) {
	if len(z) == 0 {
		return
	}
	m := z[0]
	for _, v := range z[1:] {
		m = max(m, v)
	}
	var s float64
	for _, v := range z {
		s += math.Exp(float64(v - m))
	}
	lse := m + F(math.Log(s))
	for i, v := range z {
		logp[i] = v - lse
	}
}

// LogSoftmaxBackward writes dz = dlogp - p Σ dlogp, with p = exp(logp).
// dlogp and dz may be the same slice.
func LogSoftmaxBackward[F Float](logp, dlogp, dz []F) {
	var s F
	for _, d := range dlogp[:len(logp)] {
		s += d
	}
	for i, l := range logp {
		dz[i] = dlogp[i] - F(math.Exp(float64(l)))*s
	}
}

// MaskedEntropy returns -Σ p log p over the entries where mask is true,
// given log-probabilities logp; masked entries contribute nothing.
func MaskedEntropy[F Float](logp []F, mask []bool) F {
	var h F
	for i, l := range logp {
		if mask[i] {
			h -= F(math.Exp(float64(l))) * l
		}
	}
	return h
}

// MaskedEntropyBackward adds dH * dH/dz into dz, where H is
// MaskedEntropy(LogSoftmax(z), mask): dH/dz_i = -p_i (valid_i (log p_i + 1)
// - Σ_valid p_j (log p_j + 1)).
func MaskedEntropyBackward[F Float](logp []F, mask []bool, dH F, dz []F) {
	var s F // Σ_valid p_j (log p_j + 1)
	for i, l := range logp {
		if mask[i] {
			s += F(math.Exp(float64(l))) * (l + 1)
		}
	}
	for i, l := range logp {
		p := F(math.Exp(float64(l)))
		g := -s
		if mask[i] {
			g += l + 1
		}
		dz[i] -= dH * p * g
	}
}
