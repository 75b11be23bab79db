package ruleverify

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/rules"
)

// opSwaps gives, for an op, the ops a mutant puts in its place: each
// computes something different on general inputs.
var opSwaps = map[string][]string{
	"Relu": {"Sigmoid"}, "Sigmoid": {"Tanh"}, "Tanh": {"Sigmoid"}, "Exp": {"Erf"},
	"Erf": {"Tanh"}, "Sqrt": {"Exp"}, "Log": {"Exp"}, "Add": {"Sub", "Mul"},
	"Sub": {"Add"}, "Mul": {"Add"}, "Div": {"Mul"}, "Max": {"Min"}, "Min": {"Max"},
	"MatMul": {"Mul"}, "ReduceMean": {"ReduceSum"}, "ReduceSum": {"ReduceMean"},
	"Softmax": {"Sigmoid"}, "LeakyRelu": {"Relu"}, "Gemm": {"MatMul"},
}

// commutativeOps are left out of argument swaps (a swap there is the same
// rule).
var commutativeOps = map[string]bool{"Add": true, "Mul": true, "Max": true, "Min": true}

// equivalentMutants lists mutants that are correct rules, by rule name and
// mutation; each must verify. Every other mutant must be rejected.
var equivalentMutants = map[string]string{
	// Conv(t, t) with t = Concat(...) along channels: reordering the
	// channels reorders the input channels of data and weights alike.
	"conv-self-channels-a: swap arguments of Concat at 138": "channel order cancels",
	"conv-self-channels-a: swap arguments of Concat at 156": "channel order cancels",
	"conv-self-channels-b: swap arguments of Concat at 140": "channel order cancels",
	"conv-self-channels-b: swap arguments of Concat at 158": "channel order cancels",
	"conv-self-channels-c: swap arguments of Concat at 140": "channel order cancels",
	"conv-self-channels-c: swap arguments of Concat at 158": "channel order cancels",
	// Softmax ignores a scalar shift of either sign.
	"softmax-drop-shift: op Add at 36 -> Sub": "Softmax(x - s) = Softmax(x)",
}

var (
	opCall = regexp.MustCompile(`\b([A-Z][A-Za-z]*)[\[(]`)
	number = regexp.MustCompile(`\b\d+(\.\d+)?\b`)
)

// mutant is one altered rule text.
type mutant struct {
	what, text string
}

// mutate returns the mutants of one rule's text (first line "name SOURCE
// && ... => TARGET", then where lines): every op of either side swapped
// (opSwaps) or bypassed (a one-argument op replaced by its argument), every
// number of either side perturbed, every argument of a target op dropped,
// and the first two arguments of every non-commutative target op swapped.
func mutate(text string) []mutant {
	line, rest, _ := strings.Cut(text, "\n")
	arrow := strings.Index(line, " => ")
	if arrow < 0 {
		return nil
	}
	var out []mutant
	add := func(what string, newLine string) {
		if newLine != line {
			out = append(out, mutant{what, newLine + "\n" + rest})
		}
	}
	name, _, _ := strings.Cut(line, " ")
	for _, m := range opCall.FindAllStringSubmatchIndex(line, -1) {
		if m[2] < len(name) {
			continue
		}
		op := line[m[2]:m[3]]
		for _, to := range opSwaps[op] {
			add(fmt.Sprintf("op %s at %d -> %s", op, m[2], to), line[:m[2]]+to+line[m[3]:])
		}
	}
	for _, m := range opCall.FindAllStringSubmatchIndex(line, -1) {
		if m[2] < len(name) {
			continue
		}
		open := strings.IndexByte(line[m[2]:], '(')
		if open < 0 {
			continue
		}
		open += m[2]
		if args, end := splitArgs(line, open); end >= 0 && len(args) == 1 {
			add(fmt.Sprintf("bypass %s at %d", line[m[2]:m[3]], m[2]), line[:m[2]]+args[0]+line[end+1:])
		}
	}
	tgt := arrow + 4
	// Numbers of the ops: not of the name, the taso tags or the conditions.
	srcStart := len(name)
	if strings.HasPrefix(line[srcStart:], " [taso") {
		srcStart += strings.IndexByte(line[srcStart:], ']') + 1
	}
	srcEnd := arrow
	if i := strings.Index(line, " && "); i >= 0 && i < arrow {
		srcEnd = i
	}
	for _, m := range number.FindAllStringIndex(line, -1) {
		s, e := m[0], m[1]
		if s < srcStart || (s >= srcEnd && s < tgt) {
			continue
		}
		lit := line[s:e]
		var repl string
		if strings.Contains(lit, ".") {
			f, _ := strconv.ParseFloat(lit, 64)
			repl = strconv.FormatFloat(f*1.5+0.25, 'g', -1, 64)
		} else {
			n, _ := strconv.Atoi(lit)
			repl = strconv.Itoa(n + 1)
			if strings.HasSuffix(line[:s], "transA=") || strings.HasSuffix(line[:s], "transB=") {
				repl = strconv.Itoa(1 - min(n, 1)) // any nonzero flag means true
			}
		}
		add(fmt.Sprintf("number %s at %d -> %s", lit, s, repl), line[:s]+repl+line[e:])
	}
	for _, m := range opCall.FindAllStringSubmatchIndex(line[tgt:], -1) {
		op := line[tgt+m[2] : tgt+m[3]]
		open := strings.IndexByte(line[tgt+m[2]:], '(')
		if open < 0 {
			continue
		}
		open += tgt + m[2]
		args, end := splitArgs(line, open)
		if end < 0 {
			continue
		}
		for i := range args {
			if len(args) < 2 {
				break
			}
			kept := append(append([]string(nil), args[:i]...), args[i+1:]...)
			add(fmt.Sprintf("drop argument %d of %s at %d", i, op, open), line[:open+1]+strings.Join(kept, ", ")+line[end:])
		}
		if len(args) >= 2 && !commutativeOps[op] && args[0] != args[1] {
			sw := append([]string{args[1], args[0]}, args[2:]...)
			add(fmt.Sprintf("swap arguments of %s at %d", op, open), line[:open+1]+strings.Join(sw, ", ")+line[end:])
		}
	}
	return out
}

// splitArgs splits the top-level arguments of the call whose "(" is at
// open; end is the index of its ")" (-1 if unbalanced).
func splitArgs(s string, open int) (args []string, end int) {
	depth, start := 0, open+1
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				if a := strings.TrimSpace(s[start:i]); a != "" {
					args = append(args, a)
				}
				return args, i
			}
		case ',':
			if depth == 1 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil, -1
}

// TestMutantsRejected alters every shipped rule (an op swapped, a number
// of the target perturbed, an argument dropped, two arguments swapped) and
// requires every mutant to be rejected, when parsed or when verified,
// unless it is listed in equivalentMutants as a correct rule (then it must
// verify).
func TestMutantsRejected(t *testing.T) {
	set, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	total, atLoad, atVerify := 0, 0, 0
	for _, r := range set.Rules {
		ms := mutate(r.String())
		if len(ms) == 0 {
			t.Errorf("%s: no mutants", r.Name)
		}
		for _, m := range ms {
			total++
			key := r.Name + ": " + m.what
			ms, err := rules.Parse("mutant.rules", []byte(m.text+"\n"))
			if err != nil {
				atLoad++
				if _, ok := equivalentMutants[key]; ok {
					t.Errorf("%s: listed as equivalent but rejected at load: %v", key, err)
				}
				continue
			}
			rep, err := Verify(ms.Rules[0], Options{})
			if err != nil {
				t.Errorf("%s: %v", key, err)
				continue
			}
			_, equivalent := equivalentMutants[key]
			switch {
			case rep.OK && !equivalent:
				t.Errorf("%s: mutant accepted:\n%s", key, m.text)
			case !rep.OK && equivalent:
				t.Errorf("%s: listed as equivalent but rejected: %v", key, rep.Err)
			case !rep.OK:
				atVerify++
			}
		}
	}
	t.Logf("%d mutants of %d rules: %d rejected at load, %d by verification, %d equivalent", total, len(set.Rules), atLoad, atVerify, len(equivalentMutants))
}
