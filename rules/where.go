package rules

import "sort"

// where compiles the instantiation items in force for rr: the section's
// default line, overridden item by item by the rule's own where clause.
func (c *compiler) where(rr *rawRule) {
	items := map[string]*rawWhere{}
	own := map[string]bool{}
	for _, w := range rr.section {
		// Default items are shared by the rules of a section; checking
		// resolves names in place, so each rule gets its own copy.
		items[w.name] = w.clone()
	}
	for _, w := range rr.where {
		if own[w.name] {
			c.errorf(w.pos, "where: %s is declared twice", w.name)
		}
		own[w.name] = true
		items[w.name] = w
	}
	c.items = items
	// Templates of tensor variables define the symbols.
	for _, v := range c.r.Vars {
		if v.Kind != TensorVar {
			continue
		}
		w := items[v.Name]
		switch {
		case w == nil:
			c.errorf(v.Pos, "no shape template for %s (declare it in a where clause or a default line, e.g. %s[n, c])", v.Name, v.Name)
			continue
		case !w.isShape:
			c.errorf(w.pos, "%s is a tensor variable: give a shape template %s[...], not a domain", v.Name, v.Name)
			continue
		}
		v.Template = &Template{Pos: w.pos}
		v.Range = w.rng
		for _, d := range w.dims {
			td := &TDim{}
			if d.seg != "" {
				td.Seg = c.symbol(d.seg, true, d.pos)
			} else {
				td.Expr = d.expr
				if d.expr.Op == EName && !d.expr.HasOutput {
					d.expr.Sym = c.symbol(d.expr.Name, false, d.pos)
					d.expr.Type = KInt
				}
			}
			v.Template.Dims = append(v.Template.Dims, td)
		}
	}
	// Dimension expressions may use any symbol of any template.
	for _, v := range c.r.Vars {
		if v.Template == nil {
			continue
		}
		for _, td := range v.Template.Dims {
			if td.Expr != nil && td.Expr.Sym == nil {
				if k := c.typeExpr(td.Expr, c.symScope); k != KInvalid && k != KInt {
					c.errorf(td.Expr.Pos, "a dimension must be an int, got %v", k)
				}
			}
		}
	}
	for _, v := range c.r.Vars {
		if v.Kind == TensorVar {
			continue
		}
		w := items[v.Name]
		if w == nil {
			if c.needDomain[v] {
				c.errorf(v.Pos, "attribute variable %s has no domain for verification (add 'where %s in {...}')", v.Name, v.Name)
			}
			continue
		}
		if w.isShape {
			c.errorf(w.pos, "%s is %s: give a domain '%s in {...}', not a shape template", v.Name, kindPhrase(v), v.Name)
			continue
		}
		v.Domain, v.DomainPos = w.domain, w.pos
		for _, e := range w.domain {
			k := c.typeExpr(e, c.domScope(v))
			if k == KInvalid {
				continue
			}
			if v.Kind == RecordVar {
				if k != KRecord {
					c.errorf(e.Pos, "record variable %s needs record values {name=value, ...}, got %v", v.Name, k)
				} else {
					c.checkRecord(v, e)
				}
			} else if !assignable(k, v.Type) {
				c.errorf(e.Pos, "domain of %s must hold %v values, got %v", v.Name, v.Type, k)
			}
		}
	}
	if n := c.r.NumCombos(); n > MaxCombos {
		pos := c.r.Pos
		for _, v := range c.r.Vars {
			if v.Kind != TensorVar && len(v.Domain) > 1 {
				pos = v.DomainPos
				break
			}
		}
		c.errorf(pos, "rule %s declares %d attribute combinations (the product of its domain sizes); the verifier tries every one and accepts at most %d", c.r.Name, n, MaxCombos)
	}
	// Rule-level domains of other names declare free symbols: sampling
	// parameters that other domains and templates' domains use.
	for _, w := range rr.where {
		if c.vars[w.name] == nil && c.syms[w.name] == nil && !w.isShape {
			c.symbol(w.name, false, w.pos)
		}
	}
	names := make([]string, 0, len(items))
	for name := range items {
		names = append(names, name)
	}
	sort.Strings(names)
	typed := map[string]bool{}
	for len(typed) < len(names) {
		progress := false
		for _, name := range names {
			if typed[name] {
				continue
			}
			w := items[name]
			s := c.syms[name]
			if c.vars[name] != nil || s == nil {
				// Variables are done above; default items for names the
				// rule does not use may still become free symbols below.
				continue
			}
			typed[name], progress = true, true
			if w.isShape {
				c.errorf(w.pos, "%s is a dimension symbol: give a domain '%s in {...}'", name, name)
				continue
			}
			s.Domain = w.domain
			for _, e := range w.domain {
				k := c.typeExpr(e, c.symScope)
				switch {
				case s.IsSeg && k != KInvalid && k != KInt:
					c.errorf(e.Pos, "domain of segment %s must hold lengths (ints), got %v", name, k)
				case !s.IsSeg && k != KInvalid && k != KInt:
					c.errorf(e.Pos, "domain of dimension symbol %s must hold ints, got %v", name, k)
				case e.Op == ELit && e.Lit.Int < 0:
					c.errorf(e.Pos, "domain of dimension symbol %s must not be negative", name)
				}
			}
		}
		if !progress {
			break
		}
	}
	for _, w := range rr.where {
		if c.vars[w.name] == nil && c.syms[w.name] == nil {
			c.errorf(w.pos, "where: %s is neither a variable nor a dimension symbol of rule %s", w.name, c.r.Name)
		}
	}
}

// symbol returns the symbol name, creating it on first use.
func (c *compiler) symbol(name string, seg bool, pos Pos) *Symbol {
	if s := c.syms[name]; s != nil {
		if s.IsSeg != seg {
			c.errorf(pos, "%s is used both as a segment (*%s) and as a dimension", name, name)
		}
		return s
	}
	if c.vars[name] != nil {
		c.errorf(pos, "dimension symbol %s has the name of a variable", name)
	}
	s := &Symbol{Name: name, IsSeg: seg, Pos: pos, Index: len(c.r.Symbols)}
	c.syms[name] = s
	c.r.Symbols = append(c.r.Symbols, s)
	return s
}

// symScope resolves names in instantiation expressions to symbols. A name
// with a domain in the where items in force but in no template becomes a
// free symbol.
func (c *compiler) symScope(e *Expr) Kind {
	s := c.syms[e.Name]
	if s == nil && !e.HasOutput && c.vars[e.Name] == nil {
		if w := c.items[e.Name]; w != nil && !w.isShape {
			s = c.symbol(e.Name, false, w.pos)
		}
	}
	if s == nil || e.HasOutput {
		c.errorf(e.Pos, "unknown dimension symbol %s", e.Name)
		return KInvalid
	}
	e.Sym = s
	if s.IsSeg {
		return KInts
	}
	return KInt
}

// domScope resolves names in the domain of variable v: symbols, and
// attribute variables that come before v (the sampler assigns variables in
// order).
func (c *compiler) domScope(v *Var) scope {
	return func(e *Expr) Kind {
		if w := c.vars[e.Name]; w != nil && !e.HasOutput {
			if w.Kind != AttrVar || w.Index >= v.Index {
				c.errorf(e.Pos, "the domain of %s may use only symbols and attribute variables bound before it, not %s", v.Name, e.Name)
				return KInvalid
			}
			return c.varKind(e, w)
		}
		return c.symScope(e)
	}
}

// checkRecord checks the fields of a record literal against the op the
// record variable captures.
func (c *compiler) checkRecord(v *Var, e *Expr) {
	if e.Op != ERecord {
		return
	}
	s := lookupSchema(v.recOp)
	if s == nil {
		return
	}
	for i, name := range e.Fields {
		spec := s.Attr(name)
		switch {
		case spec == nil:
			c.errorf(e.Args[i].Pos, "%s has no attribute %s", v.recOp, name)
		case contains(v.recNamed, name):
			c.errorf(e.Args[i].Pos, "record %s does not hold %s (the pattern names it)", v.Name, name)
		case !assignable(e.Args[i].Type, kindOfAttr(spec.Kind)):
			c.errorf(e.Args[i].Pos, "attribute %s of %s is %v, got %v", name, v.recOp, kindOfAttr(spec.Kind), e.Args[i].Type)
		default:
			e.Args[i].Type = kindOfAttr(spec.Kind)
		}
	}
}

// clone returns a deep copy of w.
func (w *rawWhere) clone() *rawWhere {
	c := *w
	c.dims = make([]*rawDim, len(w.dims))
	for i, d := range w.dims {
		dc := *d
		dc.expr = d.expr.clone()
		c.dims[i] = &dc
	}
	c.domain = make([]*Expr, len(w.domain))
	for i, e := range w.domain {
		c.domain[i] = e.clone()
	}
	return &c
}
