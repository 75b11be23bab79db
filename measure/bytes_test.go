package measure

import "testing"

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		b    Bytes
		want string
	}{
		{0, "0.00 MiB"},
		{1 << 20, "1.00 MiB"},
		{31_309_824, "29.86 MiB"},
		{512 << 10, "0.50 MiB"},
	} {
		if got := tc.b.String(); got != tc.want {
			t.Errorf("Bytes(%d) = %q, want %q", int64(tc.b), got, tc.want)
		}
		if got := int64(MemoryScore(tc.b)); got != int64(tc.b) {
			t.Errorf("MemoryScore(%d) = %d: want one unit per byte", int64(tc.b), got)
		}
	}
}
