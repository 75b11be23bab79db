package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/xrl-dev/xrl/graph"
)

// checkOutputPath reports, before any work, an output file that cannot
// be written: its directory is missing or not writable, or the path is a
// directory. It probes the directory by creating and removing a temporary
// file (the final write is atomic through one, too).
func checkOutputPath(flag, path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s %s: is a directory", flag, path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: directory %s does not exist", flag, path, dir)
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case !fi.IsDir():
		return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".probe*")
	if err != nil {
		return fmt.Errorf("%s %s: directory %s is not writable: %w", flag, path, dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// makeRunDir creates dir (and missing parents) and returns the topmost
// directory it created ("" when dir existed), for removeRunDir to undo.
func makeRunDir(dir string) (string, error) {
	top := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		top = d
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("run directory %s: %w", dir, err)
	}
	return top, nil
}

// removeRunDir removes what makeRunDir created (top), when anything.
func removeRunDir(top string) {
	if top != "" {
		os.RemoveAll(top)
	}
}

// modelIdentity is what a run records to recognise its model on
// --resume: the canonical hash of the bound graph and its input shapes.
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
