package graph

import "testing"

func TestUniqueName(t *testing.T) {
	cases := []struct {
		used []string
		base string
		want string
	}{
		{nil, "x", "x"},
		{[]string{"x"}, "x", "x_1"},
		{[]string{"x", "x_1", "x_2"}, "x", "x_3"},
		{[]string{"x_1"}, "x", "x"},
	}
	for _, tc := range cases {
		used := map[string]bool{}
		for _, u := range tc.used {
			used[u] = true
		}
		got := UniqueName(used, tc.base)
		if got != tc.want || !used[got] {
			t.Errorf("UniqueName(%v, %q) = %q (recorded %v), want %q", tc.used, tc.base, got, used[got], tc.want)
		}
	}
}
