// Package rewrite provides xrl's substitution engine: it finds every match
// of every rule of a rule set in a graph, applies matches to produce
// candidate graphs, and folds constant subgraphs.
package rewrite
