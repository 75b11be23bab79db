package verify

import (
	"math"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

func vec(xs ...float32) *graph.Tensor {
	return &graph.Tensor{DType: graph.Float32, Shape: []int{len(xs)}, Data: xs}
}

// add returns b with d added to element i.
func add(b *graph.Tensor, i int, d float32) *graph.Tensor {
	c := b.Clone()
	c.Float32s()[i] += d
	return c
}

func TestCompareTensorsAllclose(t *testing.T) {
	// A sigmoid output whose values are all small (PaddleOCR's detection
	// map): float32 rounding of 2.4e-7 is no difference.
	sig := vec(0.112, 0.05, 0.3, 0.0007, 0.2)
	big := vec(1000, -250, 3, 0.5, 42)
	zero := vec(0, 0, 0, 0)
	nan := vec(1, float32(math.NaN()), 2)
	cases := []struct {
		name string
		a, b *graph.Tensor
		ok   bool
	}{
		{"identical", big, big, true},
		{"near-zero sigmoid, float32 rounding", add(sig, 0, 2.4e-7), sig, true},
		{"near-zero sigmoid, real change", add(sig, 3, 1e-3), sig, false},
		{"large values, relative rounding", add(big, 0, 1000*3e-7), big, true},
		{"large values, one element off by 1e-3 relative", add(big, 1, 0.25), big, false},
		{"small element of a large output off by 1e-2", add(big, 3, 0.01), big, false},
		// zoo-resnet18's logits (RMS 54 on one input set): a logit near 0
		// off by float32 rounding of the large terms summed into it.
		{"near-zero logit of a large output, float32 rounding", add(big, 3, 7e-5), big, true},
		{"near-zero element of a unit-scale output, same error", add(sig, 3, 7e-5), sig, false},
		{"all-zero reference, tiny noise", add(zero, 2, 1e-8), zero, true},
		{"all-zero reference, real change", add(zero, 2, 1e-3), zero, false},
		{"NaN in both", nan, nan, true},
		{"NaN in one", vec(1, 0, 2), nan, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := compareTensors(c.a, c.b, DefaultRTol, DefaultATol)
			if err != nil {
				t.Fatal(err)
			}
			ok := e.Ratio <= 1 && e.RelL2 <= DefaultRTol && !e.Mismatched
			if ok != c.ok {
				t.Errorf("ok = %v, want %v (%+v)", ok, c.ok, e)
			}
		})
	}
}

func TestCompareTensorsRelL2(t *testing.T) {
	b := vec(3, 4)
	e, err := compareTensors(vec(3, 4.5), b, DefaultRTol, DefaultATol)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.RelL2-0.1) > 1e-9 || math.Abs(e.MaxAbs-0.5) > 1e-9 {
		t.Errorf("rel L2 %g (want 0.1), max abs %g (want 0.5)", e.RelL2, e.MaxAbs)
	}
}
