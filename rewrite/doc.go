// Package rewrite provides xrl's substitution engine: it finds every match
// of every rule of a rule set in a graph, applies matches to produce
// candidate graphs, and folds constant subgraphs.
//
// # Engine
//
// Engine implements Rewriter with the rules of a rules.Set. For a graph it
//
//  1. matches every rule with a backtracking matcher that follows the
//     rule's Plan over an index of the graph built once (nodes by op,
//     producers, consumers), binding and undoing in place; it agrees with
//     rules.Index.FindMatches, the reference matcher (tests compare the
//     two on every zoo model and on every rule's instances);
//  2. keeps one match per set of matched nodes and rule: a symmetric
//     source (three MatMuls sharing an input) matches the same nodes in
//     every arrangement, and the arrangements are the same rewrite;
//  3. applies each match by copy on write, folds the constants the
//     rewrite creates (see Fold) and removes the nodes and initializers it
//     leaves unread; results with a cycle or over Options.MaxNodes are
//     rejected;
//  4. hashes each result incrementally (only the rewritten region and what
//     lies downstream of it is digested again; the result equals
//     graph.CanonicalHash) and drops results equal to the input or to an
//     earlier candidate.
//
// Steps 3 and 4 run on Options.Workers goroutines; the candidates come in
// rule order, then in match order, whatever the number of workers.
//
// # Lazy candidates
//
// On a large graph a generation has as many candidates as the graph has
// places to rewrite, and building each candidate's node list, or hashing
// what lies downstream of each rewrite, makes a generation quadratic in
// the graph's size. Engine.CandidatesLazy (a LazyRewriter, as WithPasses
// over an Engine) returns the same candidates as lazy ones: each keeps
// only its change to the input graph, knows its node count and the nodes
// it replaced and added (Candidate.Change, which lets a per-node cost
// model score it), and builds its graph on Candidate.Materialize. Above
// Options.LazyHashNodes nodes, duplicates are found by change keys (a
// digest of the candidate's new nodes that read only the input graph's
// values; equal graphs always share it) and only candidates sharing a key
// are hashed; Candidate.GraphHash hashes the others on demand and
// Candidate.CacheKey identifies them without hashing.
// CandidatesWithStats reports, per rule, the matches, candidates and
// rejections by reason, and where the time went; WriteCandidateTable
// prints them.
//
// # Sharing between graphs
//
// Candidates share every node, value and tensor their rewrite does not
// touch with the input graph (a node whose inputs change is copied), and
// Fold's result shares what it does not change with its input. This is
// what makes a generation cheap, and it relies on one invariant: graphs
// are not modified once built. The environment, the searches, export and
// latency measurement only read graphs; code that must change a graph
// (BindShapes, InferShapes, renaming for export) works on graph.Clone,
// which copies every node and value (tensors are immutable and shared by
// Clone too).
//
// # Whole-graph passes
//
// Some rewrites follow a property through any number of nodes and have no
// fixed source pattern; they are Passes. PruneDead computes, from the
// graph outputs backwards, the box of each tensor that is read, and
// rebuilds the producers over those boxes (a classifier that Gathers token
// 0 needs one row through the last layer's row-wise ops, and only the
// query rows of its attention). WithPasses offers each pass's result as a
// candidate before a base Rewriter's, after folding it and only when a
// Checker (executing before and after in float64 on random inputs)
// confirms it on that very graph.
//
// # Constant folding
//
// Fold replaces every node whose inputs are all constants (and Shape and
// Size of static shapes) by constants computed with the Go executor (pure
// data movement, Concat and reshapes, directly), so that concatenated or
// padded weights become one initializer, and drops what is left unread.
// Size caps keep huge results (an Expand of a scalar) for run time. The
// engine folds candidates with a lower cap (Options.FoldBytes) and keeps
// the folded constants in a memo shared by its generations (most folds of
// the next graph's candidates repeat those of the previous graph).
package rewrite
