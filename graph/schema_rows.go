package graph

// Row builders for the op-schema table (ops_*.go): they keep a row to its
// data, one line of structure and one of documentation. The methods below
// set one more fact on a row a family builder made
// (unaryRow(...).nonNegative()).

// ins returns required formal inputs (or outputs) with the given names, in
// order.
func ins(names ...string) []InputSpec {
	specs := make([]InputSpec, len(names))
	for i, n := range names {
		specs[i] = InputSpec{Name: n}
	}
	return specs
}

// req, opt, param and optParam return one formal input (or output):
// required, optional, a required Param input, an optional Param input.
func req(name string) InputSpec      { return InputSpec{Name: name} }
func opt(name string) InputSpec      { return InputSpec{Name: name, Optional: true} }
func param(name string) InputSpec    { return InputSpec{Name: name, Param: true} }
func optParam(name string) InputSpec { return InputSpec{Name: name, Optional: true, Param: true} }

// intAttr returns an optional int attribute that defaults to def.
func intAttr(name string, def int64) AttrSpec {
	return AttrSpec{Name: name, Kind: AttrInt, Default: defInt(def)}
}

// floatAttr returns an optional float attribute that defaults to def.
func floatAttr(name string, def float32) AttrSpec {
	return AttrSpec{Name: name, Kind: AttrFloat, Default: defFloat(def)}
}

// stringAttr returns an optional string attribute that defaults to def.
func stringAttr(name, def string) AttrSpec {
	return AttrSpec{Name: name, Kind: AttrString, Default: defString(def)}
}

// nonNegative returns row s marked NonNegative.
func (s OpSchema) nonNegative() OpSchema {
	s.NonNegative = true
	return s
}

// exact returns row s with exactness class e.
func (s OpSchema) exact(e Exactness) OpSchema {
	s.Exact = e
	return s
}

// history returns row s with version history h.
func (s OpSchema) history(h History) OpSchema {
	s.History = h
	return s
}
