package workload_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/workload"
)

// sqlOnly is a registered workload: its SQL implementation. Its options
// are one set for the workload's life; refuse, when set, is what its
// Spec.Supports refuses.
type sqlOnly struct {
	name        string
	fs          *pflag.FlagSet
	dataOptions []string
	refuse      []error
}

func newSQLOnly(name string) *sqlOnly {
	return &sqlOnly{name: name, fs: pflag.NewFlagSet(name, pflag.ContinueOnError)}
}

func (w *sqlOnly) meta() workload.Meta {
	return workload.Meta{Name: w.name, New: func() workload.Workload { return newSQLOnly(w.name) }}
}

func (w *sqlOnly) Define() workload.Spec {
	s := workload.Spec{Meta: w.meta(), Options: w.fs, Ops: []workload.Op{{Name: "op"}}, DataOptions: w.dataOptions}
	if w.refuse != nil {
		s.Supports = func(engine.Capabilities) []error { return w.refuse }
	}
	return s
}

func (w *sqlOnly) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: func(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
		return nil, errors.New("not runnable")
	}}, nil
}

// docs is a family implementation built on base: its Spec is the base's,
// with a note of its own and, when refuse is set, a Supports that refuses
// it and records the capabilities it was asked about.
type docs struct {
	base   workload.Workload
	refuse []error
	asked  *engine.Capabilities
}

// docsNote marks a Spec as docs's.
const docsNote = "the documents' implementation"

func (w *docs) Define() workload.Spec {
	s := w.base.Define()
	s.Notes = append(s.Notes, docsNote)
	if w.refuse != nil || w.asked != nil {
		s.Supports = func(c engine.Capabilities) []error {
			if w.asked != nil {
				*w.asked = c
			}
			return w.refuse
		}
	}
	return s
}

func (w *docs) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: func(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
		return nil, errors.New("not runnable")
	}}, nil
}

// isDocs reports whether w is docs's implementation.
func isDocs(w workload.Workload) bool { return slices.Contains(w.Define().Notes, docsNote) }

func register(t *testing.T, name string) *sqlOnly {
	t.Helper()
	w := newSQLOnly(name)
	workload.Register(w.meta())
	return w
}

// A workload without an implementation for a family is refused for its
// targets, naming the workload and the engine; the registered workload is
// the SQL family's.
func TestForFamilySQLOnly(t *testing.T) {
	w := register(t, "familytest-sql-only")
	got, err := workload.ForFamily(w, sqlite.Dialect{})
	if err != nil || got != workload.Workload(w) {
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
// targets, built on the workload it was given and sharing its options;
// given an implementation, ForFamily starts again from its base.
func TestForFamilyRegistered(t *testing.T) {
	w := register(t, "familytest-docs")
	var bases []workload.Workload
	workload.RegisterFamily(w.name, engine.FamilyMongo, func(base workload.Workload) workload.Workload {
		bases = append(bases, base)
		return &docs{base: base}
	})
	impl, err := workload.ForFamily(w, mongo.Dialect{})
	if err != nil {
		t.Fatal(err)
	}
	if !isDocs(impl) || len(bases) != 1 || bases[0] != workload.Workload(w) || impl.Define().Options != w.fs {
		t.Fatalf("ForFamily(mongodb) = %v (%d builds), want the builder's, on the registered workload", impl, len(bases))
	}
	if again, err := workload.ForFamily(impl, mongo.Dialect{}); err != nil || !isDocs(again) || len(bases) != 2 || bases[1] != workload.Workload(w) {
		t.Errorf("ForFamily(implementation, mongodb) = %v, %v; want a new implementation on the same base", again, err)
	}
	if back, err := workload.ForFamily(impl, sqlite.Dialect{}); err != nil || back != workload.Workload(w) {
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

// An implementation whose Spec.Supports refuses the options on the
// target's engine is not returned: ForFamily fails with every one of its
// errors, having asked with the engine's capabilities; one that accepts
// them is returned. The registered workload's own Supports decides for
// SQL targets.
func TestForFamilySupports(t *testing.T) {
	w := register(t, "familytest-picky")
	var refuse []error
	var asked engine.Capabilities
	workload.RegisterFamily(w.name, engine.FamilyMongo, func(base workload.Workload) workload.Workload {
		return &docs{base: base, refuse: refuse, asked: &asked}
	})
	impl, err := workload.ForFamily(w, mongo.Dialect{})
	if err != nil || impl == nil || !isDocs(impl) {
		t.Fatalf("ForFamily(mongodb) with nothing refused = %v, %v", impl, err)
	}
	if asked.Kind != engine.KindMongo || asked.Family != engine.FamilyMongo {
		t.Errorf("Supports asked about %+v, want MongoDB's capabilities", asked)
	}
	a := &workload.OptionError{Flag: "a", Value: "1", Err: "not on mongodb"}
	b := &workload.OptionError{Flag: "b", Value: "2", Err: "not on mongodb"}
	refuse = []error{a, b}
	impl, err = workload.ForFamily(w, mongo.Dialect{})
	if impl != nil || !errors.Is(err, a) || !errors.Is(err, b) {
		t.Errorf("ForFamily(mongodb) refusing --a and --b = %v, %v; want both option errors", impl, err)
	}
	if got, err := workload.ForFamily(w, sqlite.Dialect{}); err != nil || got != workload.Workload(w) {
		t.Errorf("ForFamily(sqlite) = %v, %v; the SQL family is not the builder's", got, err)
	}
	w.refuse = []error{a}
	if got, err := workload.ForFamily(w, sqlite.Dialect{}); got != nil || !errors.Is(err, a) {
		t.Errorf("ForFamily(sqlite) with the registered workload refusing --a = %v, %v", got, err)
	}
}
