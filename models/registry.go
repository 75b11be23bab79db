package models

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// Preset names shared by every model.
const (
	// PresetPaper holds the sizes of the published network (or of the
	// TASO / X-RLflow benchmark script when that is what xrl compares with).
	PresetPaper = "paper"
	// PresetCPU holds the same structure (at least two repeated blocks of
	// each kind) with sizes chosen so that one inference takes about 8 ms
	// in ONNX Runtime on two cores (measured 6-15 ms; 0.5-3 GFLOP, as
	// throughput differs by operator mix). The transformers keep the
	// paper's sequence and image sizes with fewer layers, narrower widths
	// and larger batches; the large CNNs take smaller images; the light
	// CNNs (MobileNetV2, SqueezeNet) and the NAS cell larger batches.
	PresetCPU = "cpu"
)

// Overrides replaces sizes of a preset. A zero field keeps the preset's
// value; a field the model has no use for is an error when non-zero.
type Overrides struct {
	Batch   int // samples per inference
	Seq     int // sequence length (tokens, audio frames, RNN steps)
	Image   int // image height and width in pixels (DALL-E: image-token grid side)
	Hidden  int // model width (transformer hidden size, RNN state, NASNet penultimate filters)
	Layers  int // repeated blocks (transformer layers, NASNet cells per stage)
	Heads   int // attention heads
	Classes int // classifier outputs
}

// fields lists the overrides by name in a fixed order, each with its field.
func (o *Overrides) fields() []struct {
	name string
	val  *int
} {
	return []struct {
		name string
		val  *int
	}{
		{"batch", &o.Batch}, {"seq", &o.Seq}, {"image", &o.Image}, {"hidden", &o.Hidden},
		{"layers", &o.Layers}, {"heads", &o.Heads}, {"classes", &o.Classes},
	}
}

// config is implemented by every model's config struct (pointer receiver).
type config interface {
	// knobs maps each override name the model accepts to the field it sets.
	knobs() map[string]*int
	// build validates the sizes and emits the graph.
	build() (*graph.Graph, error)
}

// Spec describes one model of the zoo.
type Spec struct {
	Name        string
	Description string
	// Presets lists the preset names, "paper" first.
	Presets []string
	// Overrides lists the names of the Overrides fields the model accepts
	// ("batch", "seq", "image", "hidden", "layers", "heads", "classes").
	Overrides []string
	// Scale marks a synthetic graph built to measure how xrl scales with
	// graph size rather than a benchmark network: Build knows it, List and
	// Names (the benchmark zoo) leave it out, ScaleGraphs lists it.
	Scale bool

	presets map[string]func() config
}

// widthFollower is implemented by configs with widths derived from Hidden
// (a transformer's MLP width): Build calls it after overriding Hidden.
type widthFollower interface {
	followHidden(oldHidden int)
}

var registry = map[string]*Spec{}

// register adds a benchmark network with its two presets.
func register(name, desc string, paper, cpu func() config) {
	registerSpec(name, desc, false, paper, cpu)
}

// registerScale adds a scale graph (see Spec.Scale) with its two presets.
func registerScale(name, desc string, paper, cpu func() config) {
	registerSpec(name, desc, true, paper, cpu)
}

// registerSpec adds a model of either kind.
func registerSpec(name, desc string, scale bool, paper, cpu func() config) {
	knobs := paper().knobs()
	names := make([]string, 0, len(knobs))
	for _, f := range (&Overrides{}).fields() {
		if _, ok := knobs[f.name]; ok {
			names = append(names, f.name)
		}
	}
	registry[name] = &Spec{
		Name: name, Description: desc,
		Presets:   []string{PresetPaper, PresetCPU},
		Overrides: names,
		Scale:     scale,
		presets:   map[string]func() config{PresetPaper: paper, PresetCPU: cpu},
	}
}

// List returns the specs of the benchmark networks sorted by name.
func List() []Spec { return specs(false) }

// ScaleGraphs returns the specs of the scale graphs sorted by name.
func ScaleGraphs() []Spec { return specs(true) }

// specs returns the specs of one kind sorted by name.
func specs(scale bool) []Spec {
	out := make([]Spec, 0, len(registry))
	for _, s := range registry {
		if s.Scale != scale {
			continue
		}
		c := *s
		c.Presets = append([]string(nil), s.Presets...)
		c.Overrides = append([]string(nil), s.Overrides...)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the benchmark networks' names sorted.
func Names() []string {
	var names []string
	for _, s := range List() {
		names = append(names, s.Name)
	}
	return names
}

// allNames returns the names of every model, scale graphs included, sorted.
func allNames() []string { return slices.Sorted(maps.Keys(registry)) }

// Build builds model name at the given preset ("paper" or "cpu"), with
// non-zero override fields replacing preset sizes. The result is an ONNX
// IR-version-8 model importing default-domain opset 17.
func Build(name, preset string, o Overrides) (*graph.Model, error) {
	s, ok := registry[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("unknown model %q (valid: %s)", name, strings.Join(allNames(), ", "))
	}
	mk, ok := s.presets[preset]
	if !ok {
		return nil, fmt.Errorf("model %s: unknown preset %q (valid: %s)", s.Name, preset, strings.Join(s.Presets, ", "))
	}
	c := mk()
	knobs := c.knobs()
	oldHidden := 0
	if p, ok := knobs["hidden"]; ok {
		oldHidden = *p
	}
	for _, f := range o.fields() {
		v := *f.val
		if v == 0 {
			continue
		}
		p, ok := knobs[f.name]
		if !ok {
			return nil, fmt.Errorf("model %s: override %q does not apply (valid: %s)", s.Name, f.name, strings.Join(s.Overrides, ", "))
		}
		if v < 0 {
			return nil, fmt.Errorf("model %s: override %s=%d must be positive", s.Name, f.name, v)
		}
		*p = v
	}
	if f, ok := c.(widthFollower); ok && o.Hidden != 0 && o.Hidden != oldHidden {
		f.followHidden(oldHidden)
	}
	g, err := c.build()
	if err != nil {
		return nil, fmt.Errorf("model %s (preset %s): %w", s.Name, preset, err)
	}
	return &graph.Model{
		Graph:        g,
		IRVersion:    8,
		Opsets:       []graph.OpsetID{{Domain: "", Version: 17}},
		ProducerName: "xrl",
		Doc:          s.Description,
		Metadata: []graph.StringPair{
			{Key: "xrl.model", Value: s.Name},
			{Key: "xrl.preset", Value: preset},
			{Key: "xrl.config", Value: strings.TrimPrefix(fmt.Sprintf("%+v", c), "&")},
		},
	}, nil
}

// positive checks that every named size is at least 1.
func positive(sizes ...any) error {
	for i := 0; i+1 < len(sizes); i += 2 {
		name, v := sizes[i].(string), sizes[i+1].(int)
		if v < 1 {
			return fmt.Errorf("%s must be at least 1, got %d", name, v)
		}
	}
	return nil
}

// divisible checks that a is a multiple of b.
func divisible(aName string, a int, bName string, b int) error {
	if b < 1 || a%b != 0 {
		return fmt.Errorf("%s (%d) must be a multiple of %s (%d)", aName, a, bName, b)
	}
	return nil
}

// Sizes returns the overridable sizes of a preset by override name
// ("batch", "seq", "image", ...), in the order of Overrides.
func (s Spec) Sizes(preset string) ([]NamedSize, error) {
	spec, ok := registry[s.Name]
	if !ok {
		return nil, fmt.Errorf("unknown model %q", s.Name)
	}
	mk, ok := spec.presets[preset]
	if !ok {
		return nil, fmt.Errorf("model %s: unknown preset %q (valid: %s)", s.Name, preset, strings.Join(s.Presets, ", "))
	}
	knobs := mk().knobs()
	out := make([]NamedSize, 0, len(knobs))
	for _, name := range spec.Overrides {
		out = append(out, NamedSize{Name: name, Value: *knobs[name]})
	}
	return out, nil
}

// NamedSize is one size of a preset.
type NamedSize struct {
	Name  string
	Value int
}
