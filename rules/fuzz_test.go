package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, and that whatever
// parses prints to text that parses again.
func FuzzParse(f *testing.F) {
	// Seeds: each shipped rule on its own (small inputs keep the fuzzer
	// fast) and the lines of the file of errors.
	set := loadShipped(f)
	for _, r := range set.Rules {
		f.Add([]byte(r.String() + "\n"))
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "errors.rules")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f.Add([]byte(line + "\n"))
		}
	}
	f.Add([]byte("r Relu(x) => Exp(x)\n where x[*s]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		set, err := Parse("fuzz.rules", src)
		if err != nil {
			return
		}
		for _, r := range set.Rules {
			if _, err := Parse("again.rules", []byte(r.String()+"\n")); err != nil {
				t.Errorf("rule %s prints to text that does not parse: %v\n%s", r.Name, err, r)
			}
		}
	})
}
