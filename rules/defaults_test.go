package rules

import (
	"slices"
	"testing"
)

func TestDefaultNames(t *testing.T) {
	set := loadShipped(t)
	names := set.DefaultNames()
	for _, off := range OffByDefault {
		if set.Lookup(off) == nil {
			t.Errorf("OffByDefault names %q, which is not a shipped rule", off)
		}
		if slices.Contains(names, off) {
			t.Errorf("%q is on by default", off)
		}
	}
	if len(names)+len(OffByDefault) != len(set.Rules) {
		t.Errorf("%d default rules + %d off = %d, want %d", len(names), len(OffByDefault), len(names)+len(OffByDefault), len(set.Rules))
	}
}
