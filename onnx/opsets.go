package onnx

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// The default-domain opsets xrl supports: models at opsets MinOpset to
// MaxOpset are imported as they are; models at MinLegacyOpset to
// MinOpset-1 are converted node by node to their opset-9 form where the
// conversion is exact (other nodes stay opaque).
const (
	MinOpset       = minIROpset
	MaxOpset       = maxIROpset
	MinLegacyOpset = minLegacyOpset
)

// CheckOpset reports a model whose default-domain opset is outside
// MinLegacyOpset..MaxOpset, naming the supported range. A model with no
// default-domain opset import passes when it has no default-domain
// nodes.
func CheckOpset(m *graph.Model) error {
	o := m.Opset("")
	if o == 0 && !hasDefaultDomainNodes(m.Graph) {
		return nil
	}
	if o < MinLegacyOpset || o > MaxOpset {
		return fmt.Errorf("default-domain (ai.onnx) opset %d is not supported: xrl supports opsets %d to %d (opsets %d to %d are converted to opset %d node by node where the conversion is exact)",
			o, MinOpset, MaxOpset, MinLegacyOpset, MinOpset-1, MinOpset)
	}
	return nil
}

// hasDefaultDomainNodes reports whether g has a node of the default
// domain.
func hasDefaultDomainNodes(g *graph.Graph) bool {
	if g == nil {
		return false
	}
	for _, n := range g.Nodes {
		if isDefaultDomain(n.Domain) {
			return true
		}
	}
	return false
}
