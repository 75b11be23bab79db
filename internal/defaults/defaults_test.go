package defaults

import (
	"testing"
	"time"
)

func TestPositive(t *testing.T) {
	ints := []struct{ v, d, want int }{{3, 5, 3}, {0, 5, 5}, {-2, 5, 5}}
	for _, c := range ints {
		if got := Positive(c.v, c.d); got != c.want {
			t.Errorf("Positive(%d, %d) = %d, want %d", c.v, c.d, got, c.want)
		}
	}
	floats := []struct{ v, d, want float64 }{{0.5, 0.2, 0.5}, {0, 0.2, 0.2}, {-1, 0.2, 0.2}}
	for _, c := range floats {
		if got := Positive(c.v, c.d); got != c.want {
			t.Errorf("Positive(%g, %g) = %g, want %g", c.v, c.d, got, c.want)
		}
	}
	if got := Positive(time.Duration(0), time.Second); got != time.Second {
		t.Errorf("Positive(0s, 1s) = %v, want 1s", got)
	}
}
