package workload

import (
	"errors"
	"fmt"
	"slices"

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
// implementation shares base's options: its Spec starts from base's
// (the same Meta, Options, Ops and Tables: a workload declares its tables
// once, and each engine renders them) and replaces the functions the
// family does its own way, so that flags parsed into base after the call
// still count.
type FamilyBuilder func(base Workload) Workload

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

// ForFamily returns w's implementation for the engine of dialect d: w
// itself for the SQL family, the FamilyBuilder's Workload built on w for
// another family, or an error wrapping ErrUnsupported that names the
// workload and the engine when w has none. An implementation whose
// Spec.Supports refuses w's options on d's engine is not returned: the
// error joins every refusal, so it comes before any work on the target.
// ForFamily may be given the result of an earlier call.
func ForFamily(w Workload, d engine.Dialect) (Workload, error) {
	if f, ok := w.(*familyImpl); ok {
		w = f.base
	}
	caps := d.Capabilities()
	impl := w
	if caps.Family != engine.FamilySQL {
		name := w.Define().Meta.Name
		mu.RLock()
		build, ok := families[familyKey{name, caps.Family}]
		mu.RUnlock()
		if !ok {
			return nil, fmt.Errorf("%w: %s has no implementation for %s targets", ErrUnsupported, name, d.Name())
		}
		impl = &familyImpl{Workload: build(w), base: w}
	}
	if sup := impl.Define().Supports; sup != nil {
		if errs := sup(caps); len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
	}
	return impl, nil
}

// familyImpl is an implementation ForFamily built, which remembers the
// registered workload it was built on.
type familyImpl struct {
	Workload
	base Workload
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
