package workload_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/workload"
)

// sqlOnly is a registered workload: its SQL implementation.
type sqlOnly struct{ name string }

func (w *sqlOnly) Meta() workload.Meta {
	return workload.Meta{Name: w.name, New: func() workload.Workload { return &sqlOnly{name: w.name} }}
}
func (w *sqlOnly) Flags() *pflag.FlagSet                  { return pflag.NewFlagSet(w.name, pflag.ContinueOnError) }
func (w *sqlOnly) Tables(engine.Dialect) []workload.Table { return nil }
func (w *sqlOnly) Ops() []workload.Op                     { return []workload.Op{{Name: "op"}} }
func (w *sqlOnly) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	return nil, errors.New("not runnable")
}

// docs is a family implementation built on a sqlOnly.
type docs struct {
	sqlOnly
	base workload.Workload
}

func (w *docs) Base() workload.Workload { return w.base }

func register(t *testing.T, name string) *sqlOnly {
	t.Helper()
	w := &sqlOnly{name: name}
	workload.Register(w.Meta())
	return w
}

// A workload without an implementation for a family is refused for its
// targets, naming the workload and the engine; the registered workload is
// the SQL family's.
func TestForFamilySQLOnly(t *testing.T) {
	w := register(t, "familytest-sql-only")
	got, err := workload.ForFamily(w, sqlite.Dialect{})
	if err != nil || got != w {
		t.Errorf("ForFamily(sqlite) = %v, %v; want the registered workload", got, err)
	}
	_, err = workload.ForFamily(w, mongo.Dialect{})
	if !errors.Is(err, workload.ErrUnsupported) || err.Error() != "workload does not run on this engine: familytest-sql-only has no implementation for mongodb targets" {
		t.Errorf("ForFamily(mongodb) = %v; want ErrUnsupported naming the workload and mongodb", err)
	}
	if got := workload.Families(w.name); !reflect.DeepEqual(got, []engine.Family{engine.FamilySQL}) {
		t.Errorf("Families = %v, want [sql]", got)
	}
}

// A registered family builder makes the implementation for its family's
// targets, bound to the workload it was given; given an implementation,
// ForFamily starts again from its base.
func TestForFamilyRegistered(t *testing.T) {
	w := register(t, "familytest-docs")
	builds := 0
	workload.RegisterFamily(w.name, engine.FamilyMongo, func(base workload.Workload) workload.Workload {
		builds++
		return &docs{sqlOnly: sqlOnly{name: base.Meta().Name}, base: base}
	})
	impl, err := workload.ForFamily(w, mongo.Dialect{})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := impl.(*docs)
	if !ok || d.Base() != w || builds != 1 {
		t.Fatalf("ForFamily(mongodb) = %T (%d builds), want the builder's, on the registered workload", impl, builds)
	}
	if again, err := workload.ForFamily(impl, mongo.Dialect{}); err != nil || again.(*docs).Base() != w || builds != 2 {
		t.Errorf("ForFamily(implementation, mongodb) = %v, %v; want a new implementation on the same base", again, err)
	}
	if back, err := workload.ForFamily(impl, sqlite.Dialect{}); err != nil || back != w {
		t.Errorf("ForFamily(implementation, sqlite) = %v, %v; want the registered workload", back, err)
	}
	if got := workload.Families(w.name); !reflect.DeepEqual(got, []engine.Family{engine.FamilySQL, engine.FamilyMongo}) {
		t.Errorf("Families = %v, want [sql mongo]", got)
	}
}

// Registering twice, for the SQL family or without a builder are
// programming errors.
func TestRegisterFamilyPanics(t *testing.T) {
	build := func(base workload.Workload) workload.Workload { return base }
	workload.RegisterFamily("familytest-panics", engine.FamilyMongo, build)
	for name, f := range map[string]func(){
		"twice":      func() { workload.RegisterFamily("familytest-panics", engine.FamilyMongo, build) },
		"sql":        func() { workload.RegisterFamily("familytest-panics", engine.FamilySQL, build) },
		"no builder": func() { workload.RegisterFamily("familytest-panics-2", engine.FamilyMongo, nil) },
		"no name":    func() { workload.RegisterFamily("", engine.FamilyMongo, build) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

// bound is a family implementation built on Binding: everything but
// NewWorker comes from the registered workload.
type bound struct {
	workload.Binding[*sqlOnly]
}

func (bound) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	return nil, nil
}

func TestBindingForwards(t *testing.T) {
	base := &sqlOnly{name: "binding_test"}
	var w workload.Workload = bound{workload.Binding[*sqlOnly]{Of: base}}
	b, ok := w.(workload.Bound)
	if !ok || b.Base() != workload.Workload(base) {
		t.Fatalf("Base = %v, %v; want the registered workload", b, ok)
	}
	if w.Meta().Name != "binding_test" || w.Flags().Name() != "binding_test" || len(w.Ops()) != 1 || w.Ops()[0].Name != "op" {
		t.Errorf("Meta %v, Flags %q, Ops %v: not the registered workload's", w.Meta(), w.Flags().Name(), w.Ops())
	}
	if _, ok := w.(workload.Validator); ok {
		t.Error("Binding gives an optional ability the implementation did not declare")
	}
}

// picky is a family implementation that refuses some of the options its
// family cannot do.
type picky struct {
	docs
	refuse []error
}

func (w *picky) ValidateFamily() []error { return w.refuse }

// A family implementation that is a FamilyValidator and refuses the
// options is not returned: ForFamily fails with every one of its errors;
// one that accepts them is returned.
func TestForFamilyValidates(t *testing.T) {
	w := register(t, "familytest-picky")
	var refuse []error
	workload.RegisterFamily(w.name, engine.FamilyMongo, func(base workload.Workload) workload.Workload {
		return &picky{docs: docs{sqlOnly: sqlOnly{name: base.Meta().Name}, base: base}, refuse: refuse}
	})
	impl, err := workload.ForFamily(w, mongo.Dialect{})
	if _, ok := impl.(*picky); err != nil || !ok {
		t.Fatalf("ForFamily(mongodb) with nothing refused = %v, %v", impl, err)
	}
	a := &workload.OptionError{Flag: "a", Value: "1", Err: "not on mongodb"}
	b := &workload.OptionError{Flag: "b", Value: "2", Err: "not on mongodb"}
	refuse = []error{a, b}
	impl, err = workload.ForFamily(w, mongo.Dialect{})
	if impl != nil || !errors.Is(err, a) || !errors.Is(err, b) {
		t.Errorf("ForFamily(mongodb) refusing --a and --b = %v, %v; want both option errors", impl, err)
	}
	if got, err := workload.ForFamily(w, sqlite.Dialect{}); err != nil || got != w {
		t.Errorf("ForFamily(sqlite) = %v, %v; the SQL family is not the builder's", got, err)
	}
}
