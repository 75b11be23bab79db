package rules

import (
	"os"
	"path/filepath"
	"testing"
)

// loadShipped returns the shipped rule set, stopping tb when it does not
// load.
func loadShipped(tb testing.TB) *Set {
	tb.Helper()
	set, err := Load()
	if err != nil {
		tb.Fatal(err)
	}
	return set
}

// checkGolden compares got, a listing of what, with testdata/name; with
// -update it rewrites the file first.
func checkGolden(t *testing.T, name, what, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s: not as in %s (run go test -update after checking):\n%s", what, golden, got)
	}
}
