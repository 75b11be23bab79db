package train

import (
	"fmt"
	"sort"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// modelIdentity is what a run records to recognise its model on resume:
// the canonical hash of the bound graph and its input shapes.
type modelIdentity struct {
	GraphHash   string            `json:"graph_hash,omitempty"`
	InputShapes map[string]string `json:"input_shapes,omitempty"`
}

// identify returns g's identity.
func identify(g *graph.Graph) modelIdentity {
	h := g.CanonicalHash()
	id := modelIdentity{GraphHash: fmt.Sprintf("%x", h[:]), InputShapes: map[string]string{}}
	for _, in := range g.Inputs {
		if in.Const == nil {
			id.InputShapes[in.Name] = in.Shape.String()
		}
	}
	return id
}

// sameModel reports an error when a run trained on stored is resumed on
// a model with identity got (runs without a stored identity pass).
func (stored modelIdentity) sameModel(got modelIdentity, model, dir string) error {
	if stored.GraphHash == "" {
		return nil
	}
	if s, g := shapesString(stored.InputShapes), shapesString(got.InputShapes); s != g {
		return fmt.Errorf("--resume: the run in %s was trained with inputs %s; %s binds %s (pass the same --shape)", dir, s, model, g)
	}
	if stored.GraphHash != got.GraphHash {
		return fmt.Errorf("--resume: the run in %s was trained on another model (graph %.12s…), not on %s (graph %.12s…)", dir, stored.GraphHash, model, got.GraphHash)
	}
	return nil
}

// shapesString renders input shapes as "x=1x3x224x224 y=1x10", sorted.
func shapesString(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// modelEntry is one model of a multi-model run as config.json records it.
type modelEntry struct {
	Name string `json:"name"`
	Path string `json:"path"`
	modelIdentity
}

// sameModels refuses to resume a multi-model run on other models.
func sameModels(stored, got []modelEntry, dir string) error {
	if len(stored) == 0 {
		return nil
	}
	names := func(es []modelEntry) string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.Name
		}
		return strings.Join(out, ", ")
	}
	if names(stored) != names(got) {
		return fmt.Errorf("--resume: the run in %s was trained on the models %s; it cannot continue on %s", dir, names(stored), names(got))
	}
	for i := range stored {
		if err := stored[i].sameModel(got[i].modelIdentity, got[i].Path, dir); err != nil {
			return err
		}
	}
	return nil
}
