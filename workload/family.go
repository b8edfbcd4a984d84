package workload

import (
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
)

// A workload runs on an engine family (engine.Family) when it has an
// implementation for it. The Workload a package registers with Register
// is its implementation for the SQL family: its tables, statements and
// checks go through engine.SQLDialect and engine.SQLConn. The
// implementation for another family lives in a subpackage of the
// workload's own (workload/airline/mongo), which registers a FamilyBuilder
// for it with RegisterFamily. ForFamily is the one place that picks the
// implementation for a target.

// FamilyBuilder makes a workload's implementation for one engine family
// from base, the registered Workload with its options set. The
// implementation shares base's options: its Meta, Flags and Ops are
// base's, and it reads option values from base when it needs them, so
// that flags parsed into base after the call still count. It must be a
// Bound, and it has exactly the optional abilities (Checker, Installer, …)
// the workload has on that family.
type FamilyBuilder func(base Workload) Workload

// Bound is implemented by a family implementation made by a
// FamilyBuilder: Base returns the registered Workload it was built from.
type Bound interface {
	Base() Workload
}

// Binding is embedded by a family implementation: Of is the registered
// workload it is built on, and Binding gives the methods every
// implementation takes from it unchanged (Base, Meta, Flags, Ops and
// Tables: a workload declares its tables once, and each engine renders
// them). The
// optional abilities are not among them: an implementation declares
// each of its own, forwarding to Of where it shares it.
type Binding[W Workload] struct {
	Of W
}

// Base returns the registered workload.
func (b Binding[W]) Base() Workload { return b.Of }

// Meta returns the registration record.
func (b Binding[W]) Meta() Meta { return b.Of.Meta() }

// Flags returns the registered workload's options.
func (b Binding[W]) Flags() *pflag.FlagSet { return b.Of.Flags() }

// Ops lists the operations, the same in every family.
func (b Binding[W]) Ops() []Op { return b.Of.Ops() }

// Tables are the registered workload's declared tables.
func (b Binding[W]) Tables(d engine.Dialect) []Table { return b.Of.Tables(d) }

// ErrUnsupported is returned (wrapped) by ForFamily for a workload that
// has no implementation for a target's engine family.
var ErrUnsupported = errors.New("workload does not run on this engine")

type familyKey struct {
	workload string
	family   engine.Family
}

// families holds the FamilyBuilders, under mu.
var families = map[familyKey]FamilyBuilder{}

// RegisterFamily records build as workload name's implementation for
// family f; a family subpackage calls it from its init function. It panics
// on a second builder for the same workload and family, on the SQL family
// (the registered Workload is that implementation) and on missing
// arguments (programming errors). The workload itself need not be
// registered yet.
func RegisterFamily(name string, f engine.Family, build FamilyBuilder) {
	switch {
	case name == "" || f == "" || build == nil:
		panic("workload: RegisterFamily needs a name, a family and a builder")
	case f == engine.FamilySQL:
		panic("workload: RegisterFamily(" + name + "): the registered Workload is the SQL family's implementation")
	}
	mu.Lock()
	defer mu.Unlock()
	k := familyKey{name, f}
	if _, dup := families[k]; dup {
		panic(fmt.Sprintf("workload: family %s of %s registered twice", f, name))
	}
	families[k] = build
}

// FamilyValidator is implemented by family implementations that refuse
// option values the registered workload accepts, because their family
// cannot do what the values ask (docolap's --normalized, a relational
// form, on MongoDB). ValidateFamily reports every such value at once, each
// as an *OptionError naming the flag and its value; ForFamily fails with
// them, so the refusal comes before any work on the target.
type FamilyValidator interface {
	ValidateFamily() []error
}

// ForFamily returns w's implementation for the family of d's engine: w
// itself for the SQL family, the FamilyBuilder's Workload built on w for
// another family, or an error wrapping ErrUnsupported that names the
// workload and the engine when w has no implementation for it. An
// implementation that is a FamilyValidator and refuses w's options is
// not returned: the error joins its ValidateFamily errors. A Bound w
// is first replaced by its Base, so ForFamily may be given the result of
// an earlier call.
func ForFamily(w Workload, d engine.Dialect) (Workload, error) {
	if b, ok := w.(Bound); ok {
		w = b.Base()
	}
	f := d.Family()
	if f == engine.FamilySQL {
		if _, ok := d.(engine.SQLDialect); ok {
			return w, nil
		}
	} else {
		mu.RLock()
		build, ok := families[familyKey{w.Meta().Name, f}]
		mu.RUnlock()
		if ok {
			impl := build(w)
			if v, ok := impl.(FamilyValidator); ok {
				if errs := v.ValidateFamily(); len(errs) > 0 {
					return nil, errors.Join(errs...)
				}
			}
			return impl, nil
		}
	}
	return nil, fmt.Errorf("%w: %s has no implementation for %s targets", ErrUnsupported, w.Meta().Name, d.Name())
}

// Families lists the engine families workload name has an implementation
// for: the SQL family, then the others in the order of their names.
func Families(name string) []engine.Family {
	out := []engine.Family{engine.FamilySQL}
	mu.RLock()
	defer mu.RUnlock()
	var others []engine.Family
	for k := range families {
		if k.workload == name {
			others = append(others, k.family)
		}
	}
	slices.Sort(others)
	return append(out, others...)
}
