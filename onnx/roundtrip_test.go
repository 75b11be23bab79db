package onnx

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
)

// pyCheckModels runs onnx.checker on every file named on stdin and prints
// one line per failure.
const pyCheckModels = `
import sys, onnx
for path in sys.stdin.read().split('\n'):
    if not path:
        continue
    try:
        onnx.checker.check_model(onnx.load(path), full_check=False)
    except Exception as e:
        print(path + '\t' + str(e).replace('\n', ' '))
`

// TestRoundTripConformance decodes every conformance model, encodes it,
// and checks that decoding the result gives the same canonical hash, that
// encoding is stable, and that onnx.checker accepts the exported file.
func TestRoundTripConformance(t *testing.T) {
	dir := t.TempDir()
	var written []string
	opaque, total := 0, 0
	for i, path := range conformanceModels(t) {
		name := strings.TrimPrefix(path, conformanceDir+"/")
		m, err := ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, n := range m.Graph.Nodes {
			total++
			if n.IsOpaque() {
				opaque++
			}
		}
		enc, err := Encode(m)
		if err != nil {
			t.Errorf("%s: encode: %v", name, err)
			continue
		}
		m2, err := Decode(enc, DecodeOptions{Source: name + " (re-encoded)"})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if h1, h2 := m.Graph.CanonicalHash(), m2.Graph.CanonicalHash(); h1 != h2 {
			t.Errorf("%s: canonical hash changed by a round trip: %v -> %v", name, h1, h2)
		}
		enc2, err := Encode(m2)
		if err != nil {
			t.Errorf("%s: re-encode: %v", name, err)
			continue
		}
		if !bytes.Equal(enc, enc2) {
			t.Errorf("%s: encoding is not stable (%d vs %d bytes)", name, len(enc), len(enc2))
		}
		out := filepath.Join(dir, fmt.Sprintf("m%04d.onnx", i))
		if err := os.WriteFile(out, enc, 0o644); err != nil {
			t.Fatal(err)
		}
		written = append(written, out)
	}
	t.Logf("%d models, %d nodes, %d opaque", len(written), total, opaque)
	for _, line := range strings.Split(strings.TrimSpace(runPython(t, pyCheckModels, strings.Join(written, "\n"))), "\n") {
		if line != "" {
			t.Errorf("onnx.checker rejects exported model: %s", line)
		}
	}
}

// TestModelFieldsRoundTrip checks that model metadata survives.
func TestModelFieldsRoundTrip(t *testing.T) {
	m := &graph.Model{
		Graph:        &graph.Graph{Name: "g"},
		IRVersion:    7,
		Opsets:       []graph.OpsetID{{Domain: "", Version: 13}, {Domain: "com.example", Version: 2}},
		ProducerName: "p", ProducerVersion: "1.0", Domain: "org.example", ModelVersion: 42,
		Doc: "doc", Metadata: []graph.StringPair{{Key: "k", Value: "v"}, {Key: "k2", Value: ""}},
	}
	got := recode(t, m)
	got.Graph, m.Graph = nil, nil
	if fmt.Sprint(*got) != fmt.Sprint(*m) {
		t.Errorf("got %+v, want %+v", *got, *m)
	}
}

// recode encodes m and decodes the bytes again, failing t on an error.
func recode(t *testing.T, m *graph.Model) *graph.Model {
	t.Helper()
	enc, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(enc, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
