package rules

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestWriteList(t *testing.T) {
	set := loadShipped(t)
	var b bytes.Buffer
	if err := WriteList(&b, set); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"RULE", "matmul-assoc ", "MatMul MatMul", "conv-bn-fold", fmt.Sprintf("%d rules", len(set.Rules))} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if got := strings.Count(out, "\n"); got != len(set.Rules)+2 {
		t.Errorf("list has %d lines, want %d", got, len(set.Rules)+2)
	}
}

func TestWriteShow(t *testing.T) {
	set := loadShipped(t)
	var b bytes.Buffer
	if err := WriteShow(&b, set.Lookup("conv-bn-fold")); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"rule conv-bn-fold (data/handwritten.rules:", "BatchNormalization[epsilon=eps]", "conditions:", "isConst(w)", "record: attributes of Conv", "matching plan:", "1. scan for BatchNormalization", "example instance: "} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteFuncs(t *testing.T) {
	var b bytes.Buffer
	if err := WriteFuncs(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dim(tensor, int) int", "isScalar(tensor) bool", "composePerm(ints, ints) ints"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("funcs lack %q:\n%s", want, b.String())
		}
	}
	for _, f := range Funcs() {
		if f.Doc == "" || !strings.HasPrefix(f.Doc, f.Name+"(") {
			t.Errorf("function %s: doc %q should start with its call", f.Name, f.Doc)
		}
	}
}
