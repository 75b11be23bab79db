package executor

// MultiHeadAttention's projections: query, key and value each plus its
// part of bias, then the attention shared with Attention (attnCore).

// addBias returns x in float64 with bias[off:off+cols] added to every row
// of cols elements (bias nil: none).
func addBias[T floatT](x, bias []T, off, cols int) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
		if bias != nil {
			out[i] += float64(bias[off+i%cols])
		}
	}
	return out
}

func multiHeadAttentionRun[T floatT](rc *runCtx, k *attentionKernel, ins, outs []any) error {
	d := k.mha
	bias := optFloats[T](ins, 3)
	q := addBias(ins[0].([]T), bias, 0, d.Hidden)
	kk := addBias(ins[1].([]T), bias, d.Hidden, d.Hidden)
	v := addBias(ins[2].([]T), bias, 2*d.Hidden, d.VHidden)
	mask := k.core.mask(ids(ins, 4))
	attendAll(rc, &k.core, q, d.Hidden, kk, d.Hidden, v, d.VHidden, optFloats[T](ins, 5), mask, outs[0].([]T))
	return nil
}
