// Package rules provides xrl's rewrite-rule language, the verified rule set
// shipped with it (embedded .rules files, see Load), a reference matcher
// and rewriter, and the numerical verifier.
//
// # Rules
//
// A rule states that one ONNX subgraph (the source) computes the same
// values as another (the target):
//
//	name [taso 0, 5]   SOURCE && CONDITION && ...  =>  TARGET
//	    where INSTANTIATION
//
// Rules live in .rules files, one rule per item: an item starts in column
// 1, and lines that start with a blank continue it. Comment lines start
// with //; a comment line "// == Title" is a heading that groups the rules
// below it; the comment lines directly above a rule are its documentation.
//
// A side is an op expression or a tuple of them, "(e1, e2)"; source output
// i is replaced by target output i. Op expressions use the ops of the
// op-schema table (graph.Lookup) with their IR (newest opset) form:
//
//	Op[attr=value, ..., ..rec](arg, ...)   an op; attributes in brackets
//	label:Op[...](...)                      an op with a label; "label" and
//	                                        "label.1" refer to its outputs
//	x                                       a tensor variable
//	const(value)  const(value, shape)       a new constant (targets only)
//
// Inputs that older opsets had as attributes, and those the executor needs
// as constants (Split's split, Reshape's shape, Pad's pads and
// constant_value, Squeeze/Unsqueeze axes, Slice bounds, Clip bounds ...),
// are written in brackets like attributes and name the input:
// Split[axis=1, split=[2, 3]](x), Reshape[shape=s](x). In a source they
// match constant inputs by value; in a target they become new constants.
//
// In a source, an attribute is a literal or a variable. An attribute the
// source does not mention must have its default value (explicit or absent:
// matching compares effective values, and Conv's strides, dilations and
// pads, and Transpose's perm, have input-dependent defaults). "..c" binds
// every unmentioned attribute to the record variable c; a target op
// "Conv[..c]" copies them (Conv's kernel_shape is never carried: the
// weights determine it). A variable used twice must match equal values,
// and a record used twice equal attributes.
//
// In a target, attributes are expressions over the source's variables:
// literals, lists [a, b], arithmetic + - * /, and named functions such as
// dim(w, 0), shape(r), composePerm(p, q), enlargePads(w, v) (see Funcs).
// A target may use only variables the source binds. A target attribute
// equal to its schema default is left out. Conditions are bool expressions
// over the source's variables and labels: comparisons (== != < <= > >=),
// "x in {a, b}" (one of), "!" and predicates such as isConst(w),
// isScalar(s), sameShape(a, b), rank(x) == 4. The constant-value
// predicates isConstValue(t, v) and isConstNear(t, v) pin a constant to a
// value, a float expression such as 0.5 or 1.0 / sqrt(dim(q, -1)); the
// verifier gives a pinned variable that value (see constvalue.go).
//
// Commutative ops with two arguments (schema Commutative) are matched in
// both argument orders, so a rule is written in one orientation only and
// the duplicate check treats a commuted copy as a duplicate.
//
// # Shape templates and instantiation
//
// Every tensor variable has a shape template, given in the rule's where
// clause or in a "default" line that applies to the rules below it in the
// same section (a rule's own items override the default ones):
//
//	default x[m, k]  a[k, n]  y[*b, p, *s]  v[o] nonneg  k in {1, 3, 5}  a in {len(b), -1}
//
// A template entry is a dimension symbol (m), a literal (1), an int
// expression over symbols (2 * c), or a segment "*b" of any number of
// dimensions. Templates are part of the rule's meaning: a matcher binds
// the symbols and requires every occurrence of a symbol (or segment) to
// agree, so x[*s] y[*s] demands equal shapes (no broadcasting) and
// x[m, k] demands rank 2. Tensor variables match floating-point values
// only: rules are verified in floating point, and integer tensors (shape
// arithmetic) are never rewritten. Templates and conditions are in the
// duplicate check; domains are not.
//
// The verifier draws instances from the same declarations: "sym in {...}"
// is a symbol's domain (default 1..5; segments have 0 to 2 dimensions of 1
// to 3, or the lengths given), "var in {...}" lists an attribute or record
// variable's values (every combination is verified; a rule may declare at
// most MaxCombos). "nonneg" and "pos" after a template are value-range
// assumptions that the matcher proves at every match (see Range): from a
// constant's data, or for nonneg from the producing op (one the op table
// marks NonNegative); "pos" without isConst of the variable is rejected at
// load. Domains may be expressions over symbols (ci in {g * cw},
// a in {len(b)}) and over attribute variables bound earlier
// (q in {invPerm(p)}); a domain for a name in no template declares a free
// symbol used only for sampling. Variables that a condition requires to be
// isConst become initializers.
//
// The rules of CanonicalFile are canonicalisation rules: verified like the
// others but left out of DefaultNames, and applied to a fixed point
// before the fusion passes (rewrite.Canonicalize).
//
// # Checking
//
// Parse reports every problem, sorted by position, as an ErrorList
// ("file:line:col: message"): syntax errors, unknown ops, attributes,
// functions and tags, wrong arity or attribute kinds, variables the source
// does not bind, misused labels, outputs that are variables, repeated or
// unmatched in number, missing templates or domains, duplicate rules (up
// to renaming variables and commuting arguments) and rules whose two sides
// are identical.
//
// # Matching and rewriting
//
// A checked Rule carries what a matcher needs: source nodes in post-order
// with schema, argument positions, attribute patterns and commutativity;
// a Plan that says how to reach each source node (scan for the first,
// then producers and consumers of bound values); and Disconnected for
// sources whose parts share nothing. Index.FindMatches is a reference
// matcher that follows the plan; Rule.Build builds a target for a Match
// (evaluating computed attributes and inferring shapes), and Apply splices
// it into a copy of the graph. A match is valid only when no value made
// inside it is used outside unless it is a source output; Apply fails if
// the rewrite would create a cycle.
//
// # Verification
//
// Package ruleverify instantiates a rule (Sample, Instantiate) for several
// instances, runs source and target with the Go executor in float64 on
// inputs from every distribution of Dists and reports the largest
// relative error (the shipped set verifies with errors below 1e-9); rules
// made of polynomial and piecewise-linear ops are also compared in exact
// arithmetic. WriteList and WriteShow print what the "xrl rules" commands
// show. docs/rules.md describes the language for users.
package rules
