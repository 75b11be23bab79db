package pipeline

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/xrl-dev/xrl/measure"
	"github.com/xrl-dev/xrl/search"
)

// Report is what an optimisation run did, as a value: Optimize returns it
// and the CLI prints it, as text (WriteText) or as one JSON object.
// Durations are in nanoseconds in JSON (the fields ending in _ns).
type Report struct {
	// Model is the input file; Output the file written.
	Model  string `json:"model"`
	Output string `json:"output"`
	// Copied reports that Output is Model copied byte for byte (never
	// slower chose the original).
	Copied bool `json:"copied"`
	// Interface says which shapes the written model declares.
	Interface InterfaceReport `json:"interface"`
	// Method is the search or the agent that rewrote the graph.
	Method MethodReport `json:"method"`
	// Verification is how the written model was checked against the
	// original.
	Verification VerificationReport `json:"verification"`
	// MeasuredPasses are the whole-graph passes tried on the result
	// (latency objective only).
	MeasuredPasses []PassTrial `json:"measured_passes"`
	// Decision is the never-slower choice of the model to write (latency
	// objective only; nil otherwise).
	Decision *DecisionReport `json:"decision"`
	// Memory is the planned peak memory of the original and the written
	// model.
	Memory MemoryReport `json:"memory"`
	// Nodes counts the nodes of the original and the written graph.
	Nodes Change `json:"nodes"`
	// OpProfile is ONNX Runtime's time per operator type in the original
	// and in the written model (Config.ProfileOps; nil otherwise, or when
	// the backend has no profiler).
	OpProfile *OpProfileReport `json:"op_profile,omitempty"`
	// Rules are the rules applied: the search's per-rule statistics (rules
	// applied first, with the candidates each produced) or the best
	// rollout's rules in order of first use. With Verification.Rejected
	// none of them is in the written model.
	Rules []search.RuleStat `json:"rules"`
	// Times splits the run's wall time.
	Times Times `json:"times"`
}

// InterfaceReport says whether the written model keeps the original's
// symbolic dimensions.
type InterfaceReport struct {
	// Specialised reports that the written model declares the bound
	// input shapes (--specialize).
	Specialised bool `json:"specialised"`
	// Symbolic reports that the written model keeps symbolic dimensions;
	// Tuning then binds each symbol to the size the run tuned at.
	Symbolic bool         `json:"symbolic"`
	Tuning   ShapeBinding `json:"tuning,omitempty"`
}

// MethodReport describes the search or the agent's rollouts.
type MethodReport struct {
	// Kind is "search" or "agent"; Name the search algorithm or the
	// policy (a checkpoint path, or "builtin").
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Objective is what was minimised; LatencyModel names the scorer.
	Objective    string `json:"objective"`
	LatencyModel string `json:"latency_model"`
	// StopReason is why the search, or the best rollout, ended.
	StopReason string `json:"stop_reason"`
	// Elapsed is the time the search or the rollouts took.
	Elapsed time.Duration `json:"elapsed_ns"`
	// Steps counts the graphs expanded (search) or the steps of every
	// rollout (agent).
	Steps int `json:"steps"`
	// Evaluations counts the search's latency queries, Rollouts the
	// agent's rollouts.
	Evaluations int `json:"evaluations,omitempty"`
	Rollouts    int `json:"rollouts,omitempty"`
	// Initial and Best are the scorer's figures for the start graph and
	// the graph kept (a time, or a memory score under the memory
	// objective); Best is Initial when the found graph failed
	// verification.
	Initial time.Duration `json:"initial_ns"`
	Best    time.Duration `json:"best_ns"`
	// InitialBytes and BestBytes are the planned peak memory of those
	// graphs under the memory and both objectives (0 otherwise, or when
	// the executor cannot plan them).
	InitialBytes measure.Bytes `json:"initial_bytes,omitempty"`
	BestBytes    measure.Bytes `json:"best_bytes,omitempty"`
}

// VerificationReport is how the written model was checked.
type VerificationReport struct {
	// Rejected reports that the found graph failed verification and was
	// dropped for the folded model (or the original).
	Rejected bool `json:"rejected"`
	// Runtimes holds the written model's check on each runtime at the
	// tuning shape (empty when the original is written).
	Runtimes []RuntimeCheck `json:"runtimes"`
	// Bindings are the other bindings of the symbolic dimensions it was
	// checked at (Interface.VerifyBindings; a binding the original itself
	// does not take is skipped, as the progress lines say).
	Bindings []string `json:"bindings,omitempty"`
}

// RuntimeCheck is the verification on one runtime.
type RuntimeCheck struct {
	Runtime string `json:"runtime"`
	// OK reports equality within the tolerance; Skipped, when not empty,
	// says why the runtime could not run the models.
	OK      bool   `json:"ok"`
	Skipped string `json:"skipped,omitempty"`
	// MaxRelL2 is the largest relative L2 error of an output; MaxRatio
	// the largest element error over its tolerance.
	MaxRelL2 float64 `json:"max_rel_l2"`
	MaxRatio float64 `json:"max_ratio"`
	// Line is the progress line that reported it.
	Line string `json:"line"`
}

// PassTrial is one try of the measured passes on a base graph.
type PassTrial struct {
	// Base is the graph they were applied to ("the search's result" or
	// "the folded model"); Passes those that changed it.
	Base   string   `json:"base"`
	Passes []string `json:"passes"`
	// Kept reports that the result replaced the model chosen so far;
	// Outcome says why or why not.
	Kept    bool   `json:"kept"`
	Outcome string `json:"outcome"`
	// Timing compares the result with the model chosen so far (nil
	// when the result did not verify).
	Timing *Timing `json:"timing,omitempty"`
}

// DecisionReport is the never-slower decision (measure.Decision).
type DecisionReport struct {
	// Backend is the runtime the models were timed on.
	Backend string `json:"backend"`
	// Choice is "optimised", "folded" or "original"; Reason says why.
	Choice string `json:"choice"`
	Reason string `json:"reason"`
	// Timing compares the original with the written model. When the
	// original is written, After is Before and the speedup 1; both are 0
	// when nothing was timed (a result that is the original's graph, or no
	// model but the original verifying at every shape).
	Timing
	// Sweep has the comparison of the original with the model chosen at
	// the tuning shape at every other swept shape (none when the model
	// keeps no symbolic dimensions or nothing was chosen).
	Sweep []SweptTiming `json:"sweep,omitempty"`
}

// SweptTiming is the never-slower measurement at one swept shape.
type SweptTiming struct {
	// Shape binds the symbols ("batch=8 seq=128"); Verdict is the
	// sequential test's ("faster", "slower", "equivalent", "undecided").
	Shape   string `json:"shape"`
	Verdict string `json:"verdict"`
	Timing
}

// sweptTimings summarises the rows of a shape sweep.
func sweptTimings(rows []SweepRow) []SweptTiming {
	var out []SweptTiming
	for _, r := range rows {
		out = append(out, SweptTiming{Shape: r.Binding.String(), Verdict: r.Comparison.Verdict.String(), Timing: newTiming(r.Comparison)})
	}
	return out
}

// Timing is an interleaved measurement of two models (measure.Comparison).
type Timing struct {
	// Before and After are the median latencies of the first model and
	// of the second; Speedup is their ratio Before/After, with its 99%
	// interval (SpeedupLo, SpeedupHi; 0 for a bound the test left open).
	Before    time.Duration `json:"before_ns"`
	After     time.Duration `json:"after_ns"`
	Speedup   float64       `json:"speedup"`
	SpeedupLo float64       `json:"speedup_lo"`
	SpeedupHi float64       `json:"speedup_hi"`
}

// newTiming summarises c.
func newTiming(c measure.Comparison) Timing {
	lo, hi := c.SpeedupCI()
	return Timing{Before: c.A.Median, After: c.B.Median, Speedup: finite(c.Speedup()), SpeedupLo: finite(lo), SpeedupHi: finite(hi)}
}

// newDecisionReport summarises d, timed on backend.
func newDecisionReport(backend string, d measure.Decision) *DecisionReport {
	r := &DecisionReport{Backend: backend, Choice: d.Choice.String(), Reason: d.Reason}
	if c := d.Written(); c != nil {
		r.Timing = newTiming(*c)
		return r
	}
	m := d.Optimised.A.Median
	r.Timing = Timing{Before: m, After: m, Speedup: 1, SpeedupLo: 1, SpeedupHi: 1}
	return r
}

// finite returns x, or 0 when x is infinite or not a number (which JSON
// cannot carry).
func finite(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0
	}
	return x
}

// Change is a count before and after the run.
type Change struct {
	Before int `json:"before"`
	After  int `json:"after"`
}

// WriteText prints the report's summary as xrl optimize shows it after
// its progress lines: the planned memory, the nodes, the rules applied,
// the per-op profile when there is one, the time split and the file
// written.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintln(w, r.Memory)
	if r.Copied {
		fmt.Fprintf(w, "%s is %s copied byte for byte\n", r.Output, r.Model)
	}
	fmt.Fprintf(w, "nodes: %d -> %d\n", r.Nodes.Before, r.Nodes.After)
	if r.Verification.Rejected {
		fmt.Fprintln(w, "the rules below led to the graph that failed verification; none of them is in the written model")
	}
	if r.Method.Kind == methodSearch {
		fmt.Fprintln(w)
		if err := search.WriteRuleStats(w, r.Rules); err != nil {
			return err
		}
	} else if len(r.Rules) > 0 {
		fmt.Fprintf(w, "rules applied in that rollout: %s\n", formatRuleCounts(r.Rules))
	}
	if r.OpProfile != nil {
		fmt.Fprintln(w)
		if err := r.OpProfile.WriteText(w); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\n%s\n", r.Times)
	_, err := fmt.Fprintf(w, "wrote %s in %v\n", r.Output, r.Times.Total.Round(time.Millisecond))
	return err
}

// The kinds of MethodReport.
const (
	methodSearch = "search"
	methodAgent  = "agent"
)
