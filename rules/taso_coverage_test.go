package rules

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

var update = flag.Bool("update", false, "rewrite golden files")

// tasoFile is TASO's generated substitution set decoded into equations.
const tasoFile = "testdata/taso_generated_rules.txt"

// tasoOp is one statement "sK = op[attrs](args)" of a TASO equation.
type tasoOp struct {
	name  string
	op    string
	attrs map[string]string
	args  []string
}

// tasoRule is one line of the TASO file.
type tasoRule struct {
	num      int
	src, tgt []tasoOp
	outs     [][2]string // source ref -> target ref
	text     string
}

var (
	tasoLine = regexp.MustCompile(`^\s*(\d+):\s*(.*?)\s*==>\s*(.*?)\s*\|\s*outputs:\s*(.*)$`)
	tasoStmt = regexp.MustCompile(`^(\w+)\s*=\s*(\w+)(?:\[([^\]]*)\])?\(([^)]*)\)$`)
)

// parseTaso reads the TASO equations (a small parser for their notation).
func parseTaso(t *testing.T) []tasoRule {
	f, err := os.Open(tasoFile)
	if err != nil {
		t.Fatalf("reading TASO rules: %v", err)
	}
	defer f.Close()
	var out []tasoRule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := tasoLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		num, _ := strconv.Atoi(m[1])
		r := tasoRule{num: num, text: strings.TrimSpace(sc.Text())}
		stmts := func(s string) []tasoOp {
			var ops []tasoOp
			for _, part := range strings.Split(s, ";") {
				sm := tasoStmt.FindStringSubmatch(strings.TrimSpace(part))
				if sm == nil {
					t.Fatalf("TASO rule %d: cannot parse %q", num, part)
				}
				op := tasoOp{name: sm[1], op: sm[2], attrs: map[string]string{}}
				for _, kv := range strings.Split(sm[3], ",") {
					if k, v, ok := strings.Cut(kv, "="); ok {
						op.attrs[strings.TrimSpace(k)] = strings.TrimSpace(v)
					}
				}
				for _, a := range strings.Split(sm[4], ",") {
					op.args = append(op.args, strings.TrimSpace(a))
				}
				ops = append(ops, op)
			}
			return ops
		}
		r.src, r.tgt = stmts(m[2]), stmts(m[3])
		for _, pair := range strings.Split(m[4], ",") {
			a, b, ok := strings.Cut(pair, "->")
			if !ok {
				t.Fatalf("TASO rule %d: bad output mapping %q", num, pair)
			}
			r.outs = append(r.outs, [2]string{strings.TrimSpace(a), strings.TrimSpace(b)})
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// tasoVars returns the rule's input variables (x1, x4, ...) by number.
func (r tasoRule) vars() []string {
	seen := map[string]bool{}
	var vs []string
	for _, side := range [][]tasoOp{r.src, r.tgt} {
		for _, op := range side {
			for _, a := range op.args {
				if strings.HasPrefix(a, "x") && !seen[a] {
					seen[a] = true
					vs = append(vs, a)
				}
			}
		}
	}
	sort.Slice(vs, func(i, j int) bool {
		a, _ := strconv.Atoi(vs[i][1:])
		b, _ := strconv.Atoi(vs[j][1:])
		return a < b
	})
	return vs
}

// fourD reports whether the rule's variables are 4-D: it has a conv, or
// uses the variables TASO's generator made 4-D (x7 and above).
func (r tasoRule) fourD() bool {
	for _, side := range [][]tasoOp{r.src, r.tgt} {
		for _, op := range side {
			if op.op == "conv2d" {
				return true
			}
		}
	}
	for _, v := range r.vars() {
		if n, _ := strconv.Atoi(v[1:]); n >= 7 {
			return true
		}
	}
	return false
}

// build turns one side of a TASO equation into ONNX ops. Every variable is
// [4, 4] or [4, 4, 4, 4]; conv2d[s, pad, act] becomes Conv with strides
// [s, s], auto_pad SAME_UPPER for pad=same (VALID for valid), group =
// input channels / weight channels when that is not 1, then Relu for
// act=relu; matmul likewise; split cuts its input into two equal halves
// with explicit sizes. Attributes equal to their default are left out.
func (r tasoRule) build(t *testing.T, target bool) *graph.Graph {
	b := graph.NewBuilder(fmt.Sprintf("taso%d", r.num))
	vals := map[string][]*graph.Value{}
	for _, v := range r.vars() {
		if r.fourD() {
			vals[v] = []*graph.Value{b.Input(v, graph.Float32, 4, 4, 4, 4)}
		} else {
			vals[v] = []*graph.Value{b.Input(v, graph.Float32, 4, 4)}
		}
	}
	ops := r.src
	if target {
		ops = r.tgt
	}
	ref := func(s string) *graph.Value {
		name, out, _ := strings.Cut(s, ".")
		k, _ := strconv.Atoi(out)
		vs := vals[name]
		if k >= len(vs) {
			t.Fatalf("TASO rule %d: unknown value %s", r.num, s)
		}
		return vs[k]
	}
	for _, op := range ops {
		args := make([]*graph.Value, len(op.args))
		for i, a := range op.args {
			args[i] = ref(a)
		}
		var out []*graph.Value
		switch op.op {
		case "matmul":
			out = []*graph.Value{b.Op("MatMul", args, nil)}
		case "add":
			out = []*graph.Value{b.Op("Add", args, nil)}
		case "mul":
			out = []*graph.Value{b.Op("Mul", args, nil)}
		case "relu":
			out = []*graph.Value{b.Op("Relu", args, nil)}
		case "concat":
			ax, _ := strconv.Atoi(op.attrs["axis"])
			out = []*graph.Value{b.Op("Concat", args, graph.Attrs{"axis": graph.IntAttr(int64(ax))})}
		case "split":
			ax, _ := strconv.Atoi(op.attrs["axis"])
			half := int64(args[0].Shape[ax].Value / 2)
			sizes := b.Const(op.name+"_split", graph.FromInt64([]int64{half, half}, 2))
			var attrs graph.Attrs
			if ax != 0 { // 0 is Split's default, which exporters leave out
				attrs = graph.Attrs{"axis": graph.IntAttr(int64(ax))}
			}
			out = b.OpN("Split", []*graph.Value{args[0], sizes}, attrs, 2)
		case "conv2d":
			s, _ := strconv.Atoi(op.attrs["s"])
			attrs := graph.Attrs{"strides": graph.IntsAttr(int64(s), int64(s))}
			switch op.attrs["pad"] {
			case "same":
				attrs["auto_pad"] = graph.StringAttr("SAME_UPPER")
			case "valid":
				attrs["auto_pad"] = graph.StringAttr("VALID")
			}
			if g := args[0].Shape[1].Value / args[1].Shape[1].Value; g != 1 {
				attrs["group"] = graph.IntAttr(g)
			}
			out = []*graph.Value{b.Op("Conv", args, attrs)}
		default:
			t.Fatalf("TASO rule %d: unknown op %s", r.num, op.op)
		}
		if op.attrs["act"] == "relu" {
			out = []*graph.Value{b.Op("Relu", out, nil)}
		}
		vals[op.name] = out
	}
	for _, o := range r.outs {
		if target {
			b.Output(ref(o[1]))
		} else {
			b.Output(ref(o[0]))
		}
	}
	g, err := b.Graph()
	if err != nil {
		t.Fatalf("TASO rule %d (target %v): %v", r.num, target, err)
	}
	return g
}

// normForm returns a text that identifies g up to renaming, node order and
// the argument order of commutative two-input ops.
func normForm(g *graph.Graph) string {
	memo := map[*graph.Value]string{}
	prod := g.Producers()
	inIdx := map[*graph.Value]int{}
	for i, v := range g.Inputs {
		inIdx[v] = i
	}
	var val func(v *graph.Value) string
	node := func(n *graph.Node) string {
		args := make([]string, len(n.Inputs))
		for i, in := range n.Inputs {
			args[i] = val(in)
		}
		if s := n.Schema(); s != nil && s.Commutative && len(args) == 2 && args[1] < args[0] {
			args[0], args[1] = args[1], args[0]
		}
		var attrs []string
		for _, name := range n.Attrs.Names() {
			attrs = append(attrs, name+"="+n.Attrs[name].Format())
		}
		return n.Op + "[" + strings.Join(attrs, ",") + "](" + strings.Join(args, ",") + ")"
	}
	val = func(v *graph.Value) string {
		if v == nil {
			return "nil"
		}
		if s, ok := memo[v]; ok {
			return s
		}
		var s string
		switch {
		case v.Const != nil:
			s = "const:" + v.Const.Digest().String()
		case prod[v] != nil:
			n := prod[v]
			k := 0
			for i, o := range n.Outputs {
				if o == v {
					k = i
				}
			}
			s = fmt.Sprintf("%s#%d", node(n), k)
		default:
			s = fmt.Sprintf("in%d:%v", inIdx[v], v.Shape)
		}
		memo[v] = s
		return s
	}
	var outs, nodes []string
	for _, o := range g.Outputs {
		outs = append(outs, val(o))
	}
	for _, n := range g.Nodes {
		nodes = append(nodes, node(n))
	}
	sort.Strings(nodes)
	return strings.Join(outs, " ; ") + " || " + strings.Join(nodes, " ; ")
}

// tasoNumericCheck runs both sides of a translated TASO equation in float64
// on the same random inputs and returns the largest relative error (a
// check of the translation itself).
func tasoNumericCheck(t *testing.T, src, tgt *graph.Graph) float64 {
	rng := rand.New(rand.NewPCG(3, 4))
	in := map[string]*graph.Tensor{}
	for _, v := range src.Inputs {
		tt := graph.NewTensor(graph.Float64, v.Shape.Ints()...)
		FillRandom(tt, rng, false)
		in[v.Name] = tt
	}
	a, b := runGraph(t, src, in), runGraph(t, tgt, in)
	worst := 0.0
	for i := range a {
		rel, err := graph.MaxRelDiff(a[i], b[i])
		if err != nil {
			t.Fatal(err)
		}
		worst = max(worst, rel)
	}
	return worst
}

// realises reports whether applying r once, at some match in the TASO
// source graph, gives the TASO target graph.
func realises(t *testing.T, r *Rule, src, tgt *graph.Graph) bool {
	want := normForm(tgt)
	for _, m := range NewIndex(src).FindMatches(r) {
		g, err := Apply(src, m)
		if err != nil {
			continue
		}
		if err := g.Validate(); err != nil {
			t.Errorf("rule %s applied to TASO source gives an invalid graph: %v", r.Name, err)
			continue
		}
		if normForm(g) == want {
			return true
		}
	}
	return false
}

// TestTasoCoverage checks that every substitution of TASO's generated set
// is realised by the xrl rules tagged with its number: the TASO equation
// is built into ONNX graphs, the tagged rule is applied to the source graph
// and must give the target graph (up to renaming and commuting). Equations
// whose two sides are the same ONNX graph (conv2d with act=relu is Conv
// followed by Relu, so fusing is no change) need no rule and must have no
// tag. The listing is compared with testdata/taso_coverage.golden.
func TestTasoCoverage(t *testing.T) {
	set := loadShipped(t)
	tagged := map[int][]*Rule{}
	for _, r := range set.Rules {
		for _, n := range r.Taso {
			tagged[n] = append(tagged[n], r)
		}
	}
	tasos := parseTaso(t)
	if len(tasos) != 133 {
		t.Fatalf("parsed %d TASO rules, want 133", len(tasos))
	}
	var lines []string
	covered, identities := 0, 0
	for _, tr := range tasos {
		src, tgt := tr.build(t, false), tr.build(t, true)
		rs := tagged[tr.num]
		if normForm(src) == normForm(tgt) {
			identities++
			lines = append(lines, fmt.Sprintf("%3d: no rule needed: both sides are the same ONNX graph", tr.num))
			if len(rs) > 0 {
				t.Errorf("TASO rule %d is an identity in ONNX but rule %s is tagged with it", tr.num, rs[0].Name)
			}
			continue
		}
		if rel := tasoNumericCheck(t, src, tgt); rel > 1e-9 {
			t.Errorf("TASO rule %d: the ONNX translation of its two sides differs numerically (relative error %g)", tr.num, rel)
		}
		if len(rs) == 0 {
			t.Errorf("TASO rule %d is not covered (no rule tagged taso %d):\n  %s", tr.num, tr.num, tr.text)
			lines = append(lines, fmt.Sprintf("%3d: NOT COVERED", tr.num))
			continue
		}
		var names []string
		ok := true
		for _, r := range rs {
			names = append(names, r.Name)
			if !realises(t, r, src, tgt) {
				ok = false
				t.Errorf("rule %s is tagged taso %d but applying it to the TASO source does not give the TASO target:\n  %s\n  rule: %s", r.Name, tr.num, tr.text, r)
			}
		}
		if ok {
			covered++
		}
		lines = append(lines, fmt.Sprintf("%3d: %s", tr.num, strings.Join(names, ", ")))
	}
	for n, rs := range tagged {
		if n < 0 || n >= 133 {
			t.Errorf("rule %s is tagged with taso %d, which does not exist", rs[0].Name, n)
		}
	}
	t.Logf("TASO coverage: %d realised by rules, %d identities in ONNX, %d total", covered, identities, len(tasos))
	got := strings.Join(lines, "\n") + "\n" + fmt.Sprintf("realised by rules: %d, identities in ONNX: %d, total: %d\n", covered, identities, len(tasos))
	checkGolden(t, "taso_coverage.golden", "coverage listing", got)
}
