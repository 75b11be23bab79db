package graph

import (
	"testing"
)

func TestSymCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0", "0"},
		{"seq", "seq"},
		{"seq*batch", "batch*seq"},
		{"batch*seq*6", "6*batch*seq"},
		{"seq - 1", "seq-1"},
		{"1 + seq", "seq+1"},
		{"-1+seq", "seq-1"},
		{"seq*seq", "seq*seq"},
		{"(batch+1)*(batch-1)", "batch*batch-1"},
		{"seq - seq", "0"},
		{"2*(seq+3) - seq", "seq+6"},
		{"(seq*4)/2", "2*seq"},
		{"seq/4", "floor(seq/4)"},
		{"(seq+3)/4", "floor((seq+3)/4)"},
		{"floor(seq/4)", "floor(seq/4)"},
		{"floor((seq+3)/4)", "floor((seq+3)/4)"},
		{"7/2", "3"},
		{"min(seq, 128)", "min(128,seq)"},
		{"max(128, seq)", "max(128,seq)"},
		{"min(seq+1, seq)", "seq"},
		{"max(seq+1, seq)", "seq+1"},
		{"min(batch, batch*seq)", "batch"},
		{"max(batch*seq, batch)", "batch*seq"},
		{"min(2*batch*seq, batch*seq+batch)", "batch*seq+batch"},
		{"min(batch*seq, 3)", "min(3,batch*seq)"},
		{"min(2*batch, batch*seq)", "min(2*batch,batch*seq)"},
		{"min(batch*seq+2, seq)", "seq"},
		{"min(batch, seq)", "min(batch,seq)"},
		{"[batch size]*2", "2*[batch size]"},
		{"batch_size*sequence.len", "batch_size*sequence.len"},
	} {
		e, err := ParseSym(tc.in)
		if err != nil {
			t.Errorf("ParseSym(%q): %v", tc.in, err)
			continue
		}
		if got := e.String(); got != tc.want {
			t.Errorf("ParseSym(%q) = %q, want %q", tc.in, got, tc.want)
		}
		again, err := ParseSym(e.String())
		if err != nil || again.String() != e.String() {
			t.Errorf("round trip of %q: %v %v", e, again, err)
		}
	}
}

func TestSymParseErrors(t *testing.T) {
	for _, in := range []string{"", "seq+", "(seq", "seq/batch", "seq/0", "min(seq)", "[seq", "3 seq", "seq)"} {
		if _, err := ParseSym(in); err == nil {
			t.Errorf("ParseSym(%q) succeeded", in)
		}
	}
}

func TestSymArithmetic(t *testing.T) {
	b, s := SymAtom("batch"), SymAtom("seq")
	bs := b.Mul(s)
	if got := bs.Mul(SymConst(384)).String(); got != "384*batch*seq" {
		t.Fatalf("384*batch*seq: %s", got)
	}
	for _, tc := range []struct {
		a, b Sym
		want string
		ok   bool
	}{
		{bs.Mul(SymConst(384)), b.Mul(SymConst(6 * 64)), "seq", true},
		{bs.Mul(SymConst(384)), SymConst(384), "batch*seq", true},
		{bs.Mul(SymConst(6)), bs, "6", true},
		{s.Add(SymConst(1)).Mul(SymConst(3)), s.Add(SymConst(1)), "3", true},
		{s.Add(SymConst(1)), s, "", false},
		{s, SymConst(4), "", false},
		{SymConst(12), SymConst(4), "3", true},
		{s, SymConst(0), "", false},
		{SymConst(0), s, "0", true},
	} {
		q, ok := tc.a.DivExact(tc.b)
		if ok != tc.ok || (ok && q.String() != tc.want) {
			t.Errorf("%s / %s = %s, %v; want %s, %v", tc.a, tc.b, q, ok, tc.want, tc.ok)
		}
	}
	if got, ok := SymConst(42).Const(); !ok || got != 42 {
		t.Errorf("Const(42) = %d, %v", got, ok)
	}
	if _, ok := s.Const(); ok {
		t.Errorf("seq is constant")
	}
	if !s.Sub(SymConst(1)).Add(SymConst(1)).Equal(s) {
		t.Errorf("seq-1+1 != seq")
	}
}

func TestSymEval(t *testing.T) {
	bind := map[string]int64{"batch": 3, "seq": 7}
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"batch*seq*384", 3 * 7 * 384},
		{"seq-1", 6},
		{"seq/2", 3},
		{"(seq+3)/4", 2},
		{"min(seq, 5)", 5},
		{"max(seq, 5)", 7},
		{"min(seq/2, batch)+1", 4},
		{"42", 42},
	} {
		e, err := ParseSym(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Eval(bind)
		if err != nil || got != tc.want {
			t.Errorf("Eval(%s) = %d, %v; want %d", e, got, err, tc.want)
		}
	}
	if _, err := SymAtom("heads").Eval(bind); err == nil {
		t.Errorf("Eval of an unbound symbol succeeded")
	}
	e, _ := ParseSym("min(seq,batch)*2+heads")
	if got := e.Symbols(); len(got) != 3 || got[0] != "batch" || got[1] != "heads" || got[2] != "seq" {
		t.Errorf("Symbols = %v", got)
	}
	if got := e.Substitute(map[string]int64{"seq": 7, "batch": 3}).String(); got != "heads+6" {
		t.Errorf("Substitute = %s", got)
	}
}

func FuzzParseSym(f *testing.F) {
	for _, s := range []string{"seq", "batch*seq-1", "min(seq,128)", "(seq+3)/4", "[a b]*2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseSym(s)
		if err != nil {
			return
		}
		again, err := ParseSym(e.String())
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", e, s, err)
		}
		if again.String() != e.String() {
			t.Fatalf("canonical form of %q not stable: %q then %q", s, e, again)
		}
	})
}
