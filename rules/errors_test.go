package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestParseErrors parses a file full of mistakes and compares every
// reported problem, in position order, with testdata/errors.golden.
func TestParseErrors(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "errors.rules"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := Parse("errors.rules", src)
	if set != nil || err == nil {
		t.Fatalf("Parse accepted a file full of errors")
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is %T, want ErrorList", err)
	}
	var b strings.Builder
	for _, e := range list {
		b.WriteString(e.Error() + "\n")
	}
	b.WriteString("summary: " + err.Error() + "\n")
	got := b.String()
	checkGolden(t, "errors.golden", "errors", got)
	for i := 1; i < len(list); i++ {
		if list[i].Pos.less(list[i-1].Pos) {
			t.Errorf("errors not sorted: %v before %v", list[i-1], list[i])
		}
	}
}

// TestDuplicateCheckLargeRules: the duplicate check stays fast for rules
// with many commutative ops, and still sees a commuted copy.
func TestDuplicateCheckLargeRules(t *testing.T) {
	src, swapped := "x", "x"
	for i := 0; i < 14; i++ {
		src = "Add(" + src + ", Relu(y))"
		swapped = "Add(Relu(y), " + swapped + ")"
	}
	text := "a " + src + " => Mul(x, y)\n    where x[*s]  y[*s]\n" +
		"b " + swapped + " => Mul(y, x)\n    where x[*s]  y[*s]\n"
	start := time.Now()
	_, err := Parse("big.rules", []byte(text))
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("parsing two large rules took %v", d)
	}
	if err == nil || !strings.Contains(err.Error(), "rule b duplicates rule a") {
		t.Errorf("commuted copy not reported: %v", err)
	}
}
