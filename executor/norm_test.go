package executor

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

func TestSoftmax(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	shape := []int{3, 4, 5}
	x := randTensor(r, -5, 5, shape...)
	for _, axis := range []int{0, 1, 2, -1} {
		a := (axis + 3) % 3
		want := make([]float64, x.Len())
		xs := x.Float32s()
		st := strides(shape)
		for i := range want {
			idx := unravel(i, shape)
			s := 0.0
			for j := 0; j < shape[a]; j++ {
				s += math.Exp(float64(xs[i+(j-idx[a])*st[a]]))
			}
			want[i] = math.Exp(float64(xs[i])) / s
		}
		bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
			got := runOp(t, "Softmax", []opInput{in(x)}, graph.Attrs{"axis": graph.IntAttr(int64(axis))}, 1, opts)[0]
			checkClose(t, "Softmax", got, shape, want, 1e-5)
		})
	}
}

func TestLayerNormalization(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	shape := []int{2, 3, 4}
	x := randTensor(r, -2, 2, shape...)
	tests := []struct {
		axis       int
		scaleShape []int
		bias       bool
	}{
		{-1, []int{4}, true},
		{1, []int{3, 4}, false},
		{1, []int{1, 4}, true}, // broadcast scale
		{0, []int{2, 3, 4}, true},
	}
	for _, tc := range tests {
		scale := randTensor(r, 0.5, 1.5, tc.scaleShape...)
		bias := randTensor(r, -1, 1, tc.scaleShape...)
		a := (tc.axis + 3) % 3
		outer := graph.NumElements(shape[:a])
		norm := graph.NumElements(shape[a:])
		nshape := shape[a:]
		want := make([]float64, x.Len())
		wantMean := make([]float64, outer)
		wantInv := make([]float64, outer)
		xs := x.Float32s()
		for o := 0; o < outer; o++ {
			row := xs[o*norm : (o+1)*norm]
			mu, q := 0.0, 0.0
			for _, v := range row {
				mu += float64(v)
			}
			mu /= float64(norm)
			for _, v := range row {
				q += (float64(v) - mu) * (float64(v) - mu)
			}
			inv := 1 / math.Sqrt(q/float64(norm)+1e-5)
			wantMean[o], wantInv[o] = mu, inv
			for i, v := range row {
				p := bcastIndex(unravel(i, nshape), tc.scaleShape)
				y := (float64(v) - mu) * inv * float64(scale.Float32s()[p])
				if tc.bias {
					y += float64(bias.Float32s()[p])
				}
				want[o*norm+i] = y
			}
		}
		ins := []opInput{in(x), in(scale)}
		if tc.bias {
			ins = append(ins, in(bias))
		}
		statShape := make([]int, 3)
		for i := range statShape {
			statShape[i] = 1
			if i < a {
				statShape[i] = shape[i]
			}
		}
		bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
			outs := runOp(t, "LayerNormalization", ins, graph.Attrs{"axis": graph.IntAttr(int64(tc.axis))}, 3, opts)
			checkClose(t, "LayerNormalization", outs[0], shape, want, 1e-5)
			checkClose(t, "LayerNormalization mean", outs[1], statShape, wantMean, 1e-5)
			checkClose(t, "LayerNormalization inv std", outs[2], statShape, wantInv, 1e-5)
		})
	}
}

func TestBatchNormalization(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	shape := []int{2, 3, 4, 5}
	x := randTensor(r, -2, 2, shape...)
	scale, bias := randTensor(r, 0.5, 1.5, 3), randTensor(r, -1, 1, 3)
	mean, vr := randTensor(r, -1, 1, 3), randTensor(r, 0.5, 2, 3)
	hw := 20
	apply := func(m, v []float64) []float64 {
		out := make([]float64, x.Len())
		for i, xv := range x.Float32s() {
			c := (i / hw) % 3
			out[i] = (float64(xv)-m[c])/math.Sqrt(v[c]+1e-5)*float64(scale.Float32s()[c]) + float64(bias.Float32s()[c])
		}
		return out
	}
	m64, _ := mean.AsFloat64()
	v64, _ := vr.AsFloat64()
	ins := []opInput{in(x), in(scale), in(bias), in(mean), in(vr)}
	bothPrecisions(t, func(t *testing.T, opts ExecOptions) {
		got := runOp(t, "BatchNormalization", ins, nil, 1, opts)[0]
		checkClose(t, "BatchNormalization", got, shape, apply(m64, v64), 1e-5)
	})
	// Training mode: batch statistics and updated running statistics.
	bm, bv := make([]float64, 3), make([]float64, 3)
	for i, xv := range x.Float32s() {
		bm[(i/hw)%3] += float64(xv) / 40
	}
	for i, xv := range x.Float32s() {
		d := float64(xv) - bm[(i/hw)%3]
		bv[(i/hw)%3] += d * d / 40
	}
	runM, runV := make([]float64, 3), make([]float64, 3)
	for c := range runM {
		runM[c] = m64[c]*0.9 + bm[c]*0.1
		runV[c] = v64[c]*0.9 + bv[c]*0.1
	}
	outs := runOp(t, "BatchNormalization", ins, graph.Attrs{"training_mode": graph.IntAttr(1)}, 3, ExecOptions{})
	checkClose(t, "BatchNormalization training", outs[0], shape, apply(bm, bv), 1e-5)
	checkClose(t, "BatchNormalization running mean", outs[1], []int{3}, runM, 1e-5)
	checkClose(t, "BatchNormalization running var", outs[2], []int{3}, runV, 1e-5)
}
