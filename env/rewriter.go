package env

import "github.com/xrl-dev/xrl/rewrite"

// Candidate is one rewrite of the current graph (see rewrite.Candidate).
type Candidate = rewrite.Candidate

// Rewriter proposes the rewrites of a graph (see rewrite.Rewriter).
type Rewriter = rewrite.Rewriter
