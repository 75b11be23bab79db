package rules

import (
	"fmt"
	"io"

	"strconv"
	"strings"
	"text/tabwriter"
)

// Ops returns the op names of a pattern in post-order (repeats kept).
func (p *Pattern) Ops() []string {
	out := make([]string, len(p.Nodes))
	for i, n := range p.Nodes {
		out[i] = n.Op
	}
	return out
}

// tasoString formats the TASO tags ("-" when none).
func (r *Rule) tasoString() string {
	if len(r.Taso) == 0 {
		return "-"
	}
	parts := make([]string, len(r.Taso))
	for i, t := range r.Taso {
		parts[i] = strconv.Itoa(t)
	}
	return strings.Join(parts, ",")
}

// WriteList writes one line per rule (for `xrl rules list`): name, source
// ops, target ops and the TASO substitutions it realises, then a count.
func WriteList(w io.Writer, set *Set) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSOURCE OPS\tTARGET OPS\tTASO")
	for _, r := range set.Rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, strings.Join(r.Source.Ops(), " "), strings.Join(r.Target.Ops(), " "), r.tasoString())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d rules\n", len(set.Rules))
	return err
}

// WriteShow describes one rule (for `xrl rules show NAME`): its canonical
// text, where it is defined, documentation, conditions, variables with
// their templates and domains, the matching plan and an example instance.
func WriteShow(w io.Writer, r *Rule) error {
	var b strings.Builder
	fmt.Fprintf(&b, "rule %s (%v)\n", r.Name, r.Pos)
	if r.Group != "" {
		fmt.Fprintf(&b, "group: %s\n", r.Group)
	}
	if r.Doc != "" {
		for _, l := range strings.Split(r.Doc, "\n") {
			fmt.Fprintf(&b, "  // %s\n", l)
		}
	}
	fmt.Fprintf(&b, "\n%s\n\n", r.String())
	fmt.Fprintf(&b, "source ops: %s\ntarget ops: %s\n", strings.Join(r.Source.Ops(), " "), strings.Join(r.Target.Ops(), " "))
	fmt.Fprintf(&b, "outputs: %d (source output i is replaced by target output i)\n", len(r.Source.Outputs))
	fmt.Fprintf(&b, "taso: %s\n", r.tasoString())
	if len(r.Conds) > 0 {
		b.WriteString("conditions:\n")
		for _, c := range r.Conds {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	b.WriteString("variables:\n")
	for _, v := range r.Vars {
		switch v.Kind {
		case TensorVar:
			t := "(none)"
			if v.Template != nil {
				t = v.Template.String()
			}
			pos := ""
			switch v.Range {
			case RangePos:
				pos = " (pos: > 0, proved from constant data)"
			case RangeNonNeg:
				pos = " (nonneg: >= 0, proved from constant data or the producing op)"
			}
			fmt.Fprintf(&b, "  %-4s tensor %s%s\n", v.Name, t, pos)
		case AttrVar:
			fmt.Fprintf(&b, "  %-4s attribute (%v)%s\n", v.Name, v.Type, domainString(v.Domain))
		case RecordVar:
			fmt.Fprintf(&b, "  %-4s record: attributes of %s except [%s]%s\n", v.Name, v.recOp, strings.Join(v.recNamed, " "), domainString(v.Domain))
		}
	}
	b.WriteString("matching plan:\n")
	for i, st := range r.Plan {
		switch st.Kind {
		case StepScan:
			fmt.Fprintf(&b, "  %d. scan for %s\n", i+1, st.Node.Op)
		case StepProducer:
			fmt.Fprintf(&b, "  %d. %s producing a bound value\n", i+1, st.Node.Op)
		case StepConsumer:
			fmt.Fprintf(&b, "  %d. %s reading %s (argument %d)\n", i+1, st.Node.Op, refString(st.From), st.Arg+1)
		}
	}
	if r.Disconnected {
		b.WriteString("  (the source has parts that share no value: matching enumerates combinations)\n")
	}
	if insts, err := r.Sample(SampleOptions{Instances: 1}); err == nil && len(insts) > 0 {
		fmt.Fprintf(&b, "example instance: %s\n", insts[0])
	} else if err != nil {
		fmt.Fprintf(&b, "example instance: none (%v)\n", err)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func domainString(d []*Expr) string {
	if len(d) == 0 {
		return ""
	}
	parts := make([]string, len(d))
	for i, e := range d {
		parts[i] = e.String()
	}
	return " in {" + strings.Join(parts, ", ") + "}"
}

// WriteFuncs lists the functions of the rules language with their
// signatures and documentation.
func WriteFuncs(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range Funcs() {
		args := make([]string, len(f.Args))
		for i, k := range f.Args {
			args[i] = k.String()
		}
		fmt.Fprintf(tw, "%s(%s) %v\t%s\n", f.Name, strings.Join(args, ", "), f.Result, f.Doc)
	}
	return tw.Flush()
}
