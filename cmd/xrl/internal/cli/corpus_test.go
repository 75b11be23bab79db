package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The corpus test runs every model of the exported corpus (scripts/gen-corpus,
// written by scripts/setup into testdata/corpus) and the real models of
// ONNX's conformance data (libonnx-testdata) through
// inspect -> optimize (small budget) -> verify in ONNX Runtime -> export
// (onnx.checker on the written model), and logs one table row per model.

// corpusDir is where scripts/gen-corpus writes the exported models.
const corpusDir = "../../../../testdata/corpus"

// conformanceData is where libonnx-testdata installs ONNX's test models.
const conformanceData = "/usr/include/onnx/backend/test/data"

// corpusModel is one model of the corpus test.
type corpusModel struct {
	name     string
	path     string
	exporter string
	shapes   []string // --shape flags
	// bodyRule, when set, must be reported among the rules optimize
	// applied inside If/Loop/Scan bodies.
	bodyRule string
	// goToo requires the written model to be verified on the Go executor
	// as well as in ONNX Runtime.
	goToo bool
}

// exportedCorpus lists the torch-exported models; inputs with a dynamic
// sequence axis are bound here.
var exportedCorpus = []corpusModel{
	{name: "resnet18"}, {name: "squeezenet1_1"}, {name: "mobilenet_v2"},
	{name: "efficientnet_b0"}, {name: "mobilenet_v3_small"}, {name: "vit_tiny"},
	{name: "swin_tiny"},
	{name: "encoder_classifier", shapes: []string{"ids=1x128"}},
	{name: "gpt_decoder", shapes: []string{"ids=1x32"}},
	{name: "lstm_classifier"},
	// The dynamic-batch copies and the exporters' styles
	// (python/corpus/export_styles.py) go through optimize in the
	// interface test (dynamicCorpus), which checks their written models
	// at many shapes; they are not optimised twice.
	// Control flow (python/corpus/export_control.py): every body holds a
	// Gemm followed by a Mul by 0.5 that must be folded inside the body.
	{name: "vad_if", shapes: []string{"x=1x512"}, bodyRule: "gemm-mul-scalar-fold x2"},
	{name: "loop_mlp", shapes: []string{"x=4x32"}, bodyRule: "gemm-mul-scalar-fold"},
	{name: "loop_if", shapes: []string{"x=2x16"}, bodyRule: "gemm-mul-scalar-fold x2"}, // an If inside the Loop
	// Built after real deployed models (python/corpus/export_realstyle.py):
	// nested Ifs around LSTMs, old-opset Clip and Softmax, LSTM and GRU
	// taggers; every one runs on the Go executor too.
	{name: "silero_like", shapes: []string{"input=1x512"}, goToo: true},
	{name: "paddle_det_like", shapes: []string{"x=1x3x64x64"}, goToo: true},
	{name: "paddle_rec_like", shapes: []string{"x=1x3x32x64"}, goToo: true},
	{name: "lstm_tagger", shapes: []string{"ids=1x24"}, goToo: true},
	{name: "gru_tagger", shapes: []string{"ids=1x24"}, goToo: true},
}

// conformanceSkip names conformance models the corpus test leaves out, with
// the reason: xrl's IR holds tensors only.
var conformanceSkip = map[string]string{
	"test_sequence_model":  "sequence-typed values (SequenceConstruct, SequenceAt ...)",
	"test_strnorm_model":   "string tensors",
	"test_gradient_of_add": "ai.onnx.preview.training domain (Gradient op), not runnable in ONNX Runtime",
	"test_PReLU_":          "ONNX Runtime has no kernel for PRelu-6 (it cannot run the original)",
	"test_Softsign":        "ONNX Runtime has no kernel for Add-6 (it cannot run the original)",
	"test_expand_shape_":   "the target shape is a run-time input: random data is not a valid shape",
}

// ensureCorpus generates the exported corpus when it is missing.
func ensureCorpus(t *testing.T) {
	t.Helper()
	missing := false
	for _, m := range exportedCorpus {
		if _, err := os.Stat(filepath.Join(corpusDir, m.name+".onnx")); err != nil {
			missing = true
		}
	}
	if !missing {
		return
	}
	out, err := exec.Command("../../../../scripts/gen-corpus").CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/gen-corpus (needs python3-torch and python3-torchvision; run scripts/setup): %v\n%s", err, out)
	}
}

// corpusModels returns the exported corpus and the conformance models.
func corpusModels(t *testing.T) []corpusModel {
	ensureCorpus(t)
	var ms []corpusModel
	for _, m := range exportedCorpus {
		m.path = filepath.Join(corpusDir, m.name+".onnx")
		m.exporter = "torch 1.13"
		ms = append(ms, m)
	}
	for _, suite := range []string{"pytorch-converted", "simple"} {
		files, err := filepath.Glob(filepath.Join(conformanceData, suite, "*", "model.onnx"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no conformance models under %s/%s (install libonnx-testdata: scripts/setup)", conformanceData, suite)
		}
		sort.Strings(files)
	files:
		for _, f := range files {
			name := filepath.Base(filepath.Dir(f))
			for prefix := range conformanceSkip {
				if strings.HasPrefix(name, prefix) {
					continue files
				}
			}
			ms = append(ms, corpusModel{name: suite + "/" + name, path: f, exporter: "onnx " + suite})
		}
	}
	return ms
}

var (
	opsetRe  = regexp.MustCompile(`opsets[^\n]*?ai\.onnx (\d+)`)
	shrinkRe = regexp.MustCompile(`nodes: (\d+ -> \d+)`)
	nodesRe  = regexp.MustCompile(`(?m)^nodes\s+(\d+)`)
	opaqueRe = regexp.MustCompile(`(?m)^opaque ops\s+(.*?)(?: \(kept|$)`)
	// What optimize reports about control-flow bodies.
	bodyRulesRe = regexp.MustCompile(`rules applied inside bodies: ([^\n]*)`)
	bodyNodesRe = regexp.MustCompile(`nodes inside bodies: (\d+ -> \d+)`)
)

// firstMatch returns the first non-empty group of re in s, or "?".
func firstMatch(re *regexp.Regexp, s string) string {
	m := re.FindStringSubmatch(s)
	for _, g := range m[min(1, len(m)):] {
		if g != "" {
			return g
		}
	}
	return "?"
}

func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus: not in -short mode")
	}
	ms := corpusModels(t)
	if pat := os.Getenv("XRL_CORPUS"); pat != "" {
		// XRL_CORPUS=REGEXP runs only the matching models (for development).
		re := regexp.MustCompile(pat)
		ms = slices.DeleteFunc(ms, func(m corpusModel) bool { return !re.MatchString(m.name) })
	}
	dir := t.TempDir()
	rows := []string{"| model | exporter | opset | nodes | ops xrl cannot execute | result | time |", "|---|---|---|---|---|---|---|"}
	var written []string
	for _, m := range ms {
		start := time.Now()
		result := "ok"
		var inspectOut string
		func() {
			shapeArgs := func(args ...string) []string {
				for _, s := range m.shapes {
					args = append(args, "--shape", s)
				}
				return args
			}
			code, out, errOut := run(shapeArgs("inspect", m.path)...)
			inspectOut = out
			if code != exitOK {
				result = "inspect failed"
				t.Errorf("%s: inspect: exit %d: %s", m.name, code, errOut)
				return
			}
			opt := filepath.Join(dir, strings.ReplaceAll(m.name, "/", "_")+".onnx")
			code, out, errOut = run(shapeArgs("optimize", m.path, "-o", opt, "--budget", "3", "--runtime", "cost",
				"--runs", "3", "--warmup", "1", "--max-time", "1s", "--threads", "1")...)
			if code != exitOK {
				result = "optimize failed"
				t.Errorf("%s: optimize: exit %d: %s\n%s", m.name, code, errOut, out)
				return
			}
			shrink := firstMatch(shrinkRe, out)
			if m.bodyRule != "" {
				if got := firstMatch(bodyRulesRe, out); !strings.Contains(got, m.bodyRule) {
					result = "no rule applied inside bodies"
					t.Errorf("%s: optimize applied %q inside bodies, want %q:\n%s", m.name, got, m.bodyRule, out)
					return
				}
				shrink += ", inside bodies " + firstMatch(bodyNodesRe, out)
			}
			if !strings.Contains(out, "verified on ort: equal within tolerance") {
				result = "not verified in ORT"
				t.Errorf("%s: optimize did not verify the result in ONNX Runtime:\n%s", m.name, out)
				return
			}
			if m.goToo && !strings.Contains(out, "verified on go: equal within tolerance") {
				result = "not verified on the Go executor"
				t.Errorf("%s: optimize did not verify the result on the Go executor:\n%s", m.name, out)
				return
			}
			code, out, errOut = run(shapeArgs("verify", m.path, opt, "--runtime", "ort", "--seeds", "1")...)
			if code != exitOK {
				result = "verify failed"
				t.Errorf("%s: verify in ORT: exit %d: %s\n%s", m.name, code, errOut, out)
				return
			}
			written = append(written, opt)
			result = "ok, nodes " + shrink
		}()
		opaque := firstMatch(opaqueRe, inspectOut)
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %.1fs |", m.name, m.exporter,
			firstMatch(opsetRe, inspectOut), firstMatch(nodesRe, inspectOut), opaque, result, time.Since(start).Seconds()))
	}
	if len(written) > 0 {
		script := "import sys, onnx\nfor p in sys.argv[1:]:\n    onnx.checker.check_model(onnx.load(p))\n"
		cmd := exec.Command("/usr/bin/python3", append([]string{"-c", script}, written...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("onnx.checker rejected an optimised model: %v\n%s", err, out)
		}
	}
	t.Logf("corpus (%d models):\n%s", len(ms), strings.Join(rows, "\n"))
}
