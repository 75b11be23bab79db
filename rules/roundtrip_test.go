package rules

import (
	"strings"
	"testing"
)

// TestRoundTrip prints every shipped rule, parses the text back and checks
// that printing again gives the same text and the same canonical form.
func TestRoundTrip(t *testing.T) {
	set := loadShipped(t)
	for _, r := range set.Rules {
		text := r.String()
		again, err := Parse("roundtrip.rules", []byte(text+"\n"))
		if err != nil {
			t.Errorf("rule %s: printed text does not parse: %v\n%s", r.Name, err, text)
			continue
		}
		if len(again.Rules) != 1 {
			t.Errorf("rule %s: printed text parses to %d rules", r.Name, len(again.Rules))
			continue
		}
		r2 := again.Rules[0]
		if got := r2.String(); got != text {
			t.Errorf("rule %s: print/parse/print is not stable:\n first: %s\nsecond: %s", r.Name, text, got)
		}
		k1, _ := canonicalKey(r)
		k2, _ := canonicalKey(r2)
		if k1 != k2 {
			t.Errorf("rule %s: reparsed rule differs:\n%s\n%s", r.Name, k1, k2)
		}
		if !strings.HasPrefix(text, r.Name+" ") {
			t.Errorf("rule %s: printed text does not start with the name: %s", r.Name, text)
		}
	}
}
