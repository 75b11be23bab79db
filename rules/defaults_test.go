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
	canonical := set.CanonicalNames()
	if len(canonical) == 0 {
		t.Errorf("no rule of %s in the shipped set", CanonicalFile)
	}
	for _, c := range canonical {
		if slices.Contains(names, c) {
			t.Errorf("canonicalisation rule %q is on by default", c)
		}
	}
	if len(names)+len(OffByDefault)+len(canonical) != len(set.Rules) {
		t.Errorf("%d default rules + %d off + %d canonical = %d, want %d", len(names), len(OffByDefault), len(canonical), len(names)+len(OffByDefault)+len(canonical), len(set.Rules))
	}
}
