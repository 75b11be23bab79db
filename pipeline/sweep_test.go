package pipeline

import (
	"reflect"
	"testing"
	"time"

	"github.com/xrl-dev/xrl/graph"
)

func sweepInterface() *Interface {
	dyn := func(names ...string) graph.Shape {
		s := make(graph.Shape, len(names))
		for i, n := range names {
			s[i] = graph.Dim{Value: -1, Param: n}
		}
		return s
	}
	return &Interface{
		Inputs:  map[string]graph.Shape{"ids": dyn("batch", "seq"), "mask": dyn("batch", "seq"), "img": {{Value: -1, Param: "batch"}, {Value: 3}}},
		Symbols: map[string]int64{"batch": 1, "seq": 128},
		Leading: map[string]bool{"batch": true},
	}
}

func bindingStrings(bs []ShapeBinding) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.String())
	}
	return out
}

func TestDefaultSweep(t *testing.T) {
	got := bindingStrings(sweepInterface().DefaultSweep())
	want := []string{"batch=1 seq=128", "batch=8 seq=128", "batch=1 seq=32"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultSweep = %q, want %q", got, want)
	}
}

func TestBoundSweep(t *testing.T) {
	it := sweepInterface()
	for _, tc := range []struct {
		latency time.Duration
		want    []string
		notes   int
	}{
		{0, []string{"batch=1 seq=128", "batch=8 seq=128", "batch=1 seq=32"}, 0},                       // not known
		{900 * time.Microsecond, []string{"batch=1 seq=128", "batch=8 seq=128", "batch=1 seq=32"}, 0},  // a sub-millisecond model
		{6250 * time.Microsecond, []string{"batch=1 seq=128", "batch=8 seq=128", "batch=1 seq=32"}, 0}, // 8x exactly the budget
		{10 * time.Millisecond, []string{"batch=1 seq=128", "batch=4 seq=128", "batch=1 seq=32"}, 1},   // HF BERT
		{16 * time.Millisecond, []string{"batch=1 seq=128", "batch=2 seq=128", "batch=1 seq=32"}, 1},   // the corpus encoder
		{88 * time.Millisecond, []string{"batch=1 seq=128", "batch=2 seq=128", "batch=1 seq=32"}, 1},   // ViT-B/16
		{2 * time.Second, []string{"batch=1 seq=128", "batch=2 seq=128", "batch=1 seq=32"}, 1},         // 2 at least
	} {
		got, notes := it.boundSweep(it.DefaultSweep(), tc.latency)
		if !reflect.DeepEqual(bindingStrings(got), tc.want) || len(notes) != tc.notes {
			t.Errorf("boundSweep at %v = %q (notes %q), want %q (%d notes)", tc.latency, bindingStrings(got), notes, tc.want, tc.notes)
		}
	}
}

func TestParseSweep(t *testing.T) {
	it := sweepInterface()
	for _, tc := range []struct {
		specs   []string
		want    []string
		wantErr bool
	}{
		{[]string{"ids=1x32", "1x128", "8x128"}, []string{"batch=1 seq=128", "batch=1 seq=32", "batch=8 seq=128"}, false},
		{[]string{"img=4x3"}, []string{"batch=1 seq=128", "batch=4 seq=128"}, false},
		{[]string{"1x32"}, nil, true},       // no input named
		{[]string{"nope=1x32"}, nil, true},  // not an input
		{[]string{"ids=1x32x5"}, nil, true}, // rank
		{[]string{"img=4x4"}, nil, true},    // a fixed dimension changed
		{[]string{"ids=0x32"}, nil, true},   // a size below 1
		{[]string{"ids=ax32"}, nil, true},   // not a shape
	} {
		got, err := it.ParseSweep(tc.specs)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseSweep(%q) error %v, want error %v", tc.specs, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && !reflect.DeepEqual(bindingStrings(got), tc.want) {
			t.Errorf("ParseSweep(%q) = %q, want %q", tc.specs, bindingStrings(got), tc.want)
		}
	}
}
