package cli

import (
	"os"
	"path/filepath"
	"strings"
)

// modelArgs returns the model files of `xrl train`: the arguments, then
// the .onnx files of corpus (sorted).
func modelArgs(args []string, corpus string) ([]string, error) {
	models := append([]string(nil), args...)
	if corpus != "" {
		entries, err := os.ReadDir(corpus)
		if err != nil {
			return nil, usagef("--corpus: %v", err)
		}
		n := 0
		for _, e := range entries {
			if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".onnx") {
				models = append(models, filepath.Join(corpus, e.Name()))
				n++
			}
		}
		if n == 0 {
			return nil, usagef("--corpus %s: no .onnx files", corpus)
		}
	}
	if len(models) == 0 {
		return nil, usagef("give a model file, several, or --corpus DIR")
	}
	return models, nil
}
