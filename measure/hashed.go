package measure

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// HashedLatencyModel is a LatencyModel whose cache is keyed by the
// graph's canonical hash and which can be given that hash, so that a
// caller who already knows it (a rewriter hashes every candidate
// incrementally, see rewrite.Candidate.Hash) spares hashing the whole
// graph again. The models of NewLatencyModel and Cached implement it.
type HashedLatencyModel interface {
	LatencyModel
	// LatencyHashed is Latency for a model whose graph's CanonicalHash
	// is h. A wrong h returns (and caches) another graph's latency.
	LatencyHashed(m *graph.Model, h graph.Hash) (Stats, error)
}

var _ HashedLatencyModel = (*cachedLatency)(nil)

// LatencyHashed implements HashedLatencyModel.
func (c *cachedLatency) LatencyHashed(m *graph.Model, h graph.Hash) (Stats, error) {
	c.mu.Lock()
	st, ok := c.cache[h]
	c.mu.Unlock()
	if ok {
		return st, nil
	}
	st, err := c.inner.Latency(m)
	if err != nil {
		return Stats{}, fmt.Errorf("%s latency: %w", c.inner.Name(), err)
	}
	c.mu.Lock()
	c.cache[h] = st
	c.mu.Unlock()
	return st, nil
}

// LatencyKnownHash is lm.Latency(m), given m's graph's canonical hash h
// (zero: unknown) so that a HashedLatencyModel need not hash it again.
func LatencyKnownHash(lm LatencyModel, m *graph.Model, h graph.Hash) (Stats, error) {
	if hm, ok := lm.(HashedLatencyModel); ok && h != (graph.Hash{}) {
		return hm.LatencyHashed(m, h)
	}
	return lm.Latency(m)
}
