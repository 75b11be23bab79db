// Package gat provides xrl's policy network: a graph-attention encoder
// (X-RLflow section 3.4) that embeds the current graph and every
// candidate graph of an observation, a policy head that scores each
// candidate (and No-Op) with one shared MLP, and a value head.
//
// The network is written directly on gonum's BLAS with hand-written
// backward passes (package gat/nn); every layer and the whole network are
// checked against finite differences in the tests.
//
// # Architecture
//
// Each graph tensor is encoded by
//
//   - a node update h_i = LeakyReLU(W_e Σ_{edges e into i} f_e + Emb[class_i] + b)
//     (the embedding row is W times the one-hot class),
//   - Layers GAT layers with Heads heads and a self-loop on every node,
//   - a global update g = LeakyReLU(W_g [PoolScale Σ_i h_i || global] + b).
//
// The policy scores candidate c of an observation whose current graph is
// s with MLP_π([g_c || g_s]) (hidden sizes HeadHidden, tanh), and No-Op
// with the same MLP on [n || g_s], where n is a learned No-Op embedding.
// Logits of masked actions are nn.MaskedLogit. The value is MLP_v(g_s).
// Scoring candidates one at a time makes the policy independent of the
// order and number of candidates.
//
// # Batching and sharing
//
// Forward encodes all graphs of all observations of a call as one
// disjoint union, one matrix product per layer. Candidates are rewrites of
// the current graph and mostly identical to it; a node's embedding after
// k layers depends only on its k-hop incoming neighbourhood, so nodes
// whose neighbourhoods are identical (as labelled multisets) are computed
// once per layer and shared by every graph that contains them. This
// changes nothing but the cost (Config.NoShare turns it off).
package gat
