package lang

// Vars are a client's variables. A variable holds either text (set by
// -D, \gset, \aset or \setshell), read as a Value when an expression uses
// it, or a Value (set by \set), written as text when a query uses it.
// Vars are not safe for concurrent use; each client has its own.
type Vars struct {
	m map[string]*variable
}

type variable struct {
	text   string
	value  Value
	parsed bool // value holds the text's meaning (or is the variable's value)
	isText bool // the variable was set as text
	// written: text holds the value written as text (Text), kept until
	// the next Set, for a query that uses the variable several times.
	written bool
}

// NewVars returns an empty set of variables.
func NewVars() *Vars { return &Vars{m: make(map[string]*variable)} }

// SetText sets name to text.
func (vs *Vars) SetText(name, text string) {
	vs.m[name] = &variable{text: text, isText: true}
}

// Set sets name to v.
func (vs *Vars) Set(name string, v Value) {
	if x, ok := vs.m[name]; ok {
		*x = variable{value: v, parsed: true}
		return
	}
	vs.m[name] = &variable{value: v, parsed: true}
}

// Value returns name's value: ok is false when it is not set, err
// non-nil when its text is not a value (see ParseValue).
func (vs *Vars) Value(name string) (v Value, ok bool, err error) {
	x, ok := vs.m[name]
	if !ok {
		return Value{}, false, nil
	}
	if !x.parsed {
		v, err := ParseValue(x.text)
		if err != nil {
			return Value{}, true, err
		}
		x.value, x.parsed = v, true
	}
	return x.value, true, nil
}

// Text returns name's text: as set, or its value written as pgbench
// writes it (Value.String).
func (vs *Vars) Text(name string) (string, bool) {
	x, ok := vs.m[name]
	if !ok {
		return "", false
	}
	if x.isText || x.written {
		return x.text, true
	}
	x.text, x.written = x.value.String(), true
	return x.text, true
}

// Len returns the number of variables set.
func (vs *Vars) Len() int { return len(vs.m) }
