package workload

import (
	"context"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
)

// Legacy is the contract of the first two editions: one object with
// optional abilities found by type assertion. Adapt turns one into a
// Workload while the workloads move to Define and Open.
type Legacy interface {
	Meta() Meta
	Flags() *pflag.FlagSet
	Tables(d engine.Dialect) []Table
	Ops() []Op
	NewWorker(ctx context.Context, c engine.Conn, env WorkerEnv) (Worker, error)
}

// Checker is implemented by workloads that can verify the consistency of
// their data after a run. Check returns one Problem per violated
// invariant; an empty slice means the data is consistent.
type Checker interface {
	Check(ctx context.Context, c engine.Conn) ([]Problem, error)
}

// Validator is implemented by workloads whose options need checks beyond
// parsing. Validate reports every problem at once; each names the flag
// and its value.
type Validator interface {
	Validate() []error
}

// Retryer is implemented by workloads that restart transactions on more
// error classes than serialization failures and deadlocks (which are always
// retried).
type Retryer interface {
	Retryable(c engine.ErrorClass) bool
}

// RunDefaulter is implemented by workloads whose defaults for the
// runner's run options differ from "the engine's isolation" and
// DefaultRetryPolicy.
type RunDefaulter interface {
	RunDefaults() RunDefaults
}

// IsolationChecker is implemented by workloads that accept or refuse an
// isolation level themselves: on engines whose dialect is not an
// engine.Isolator (MongoDB's transactions have one level), or when an
// option of theirs leaves no transaction to isolate. The runner calls it
// before the run with the level the run sets (never ""); the error says
// why the level does not apply.
type IsolationChecker interface {
	CheckIsolation(d engine.Dialect, level string) error
}

// LoadFinisher is implemented by workloads with setup that needs every
// table loaded first (declared foreign keys need nothing: the Catalog adds
// them). Prepare calls FinishLoad after every table's indexes and
// AfterLoad statements, before the declared foreign keys and before it
// marks the tables ready.
type LoadFinisher interface {
	FinishLoad(ctx context.Context, c engine.Conn) error
}

// Installer is implemented by workloads that keep code on the server, such
// as stored procedures. The runner calls Install once before the workers
// start (it must be idempotent); cleanup calls Uninstall.
type Installer interface {
	Install(ctx context.Context, c engine.Conn) error
	Uninstall(ctx context.Context, c engine.Conn) error
}

// CounterReader is implemented by workloads whose progress is counted by
// the database itself, like TPC-C's sum(d_next_o_id) behind HammerDB's
// NOPM. The runner reads the counters on a connection of its own when the
// measured phase starts, on every tick and when it ends, and hands their
// deltas to the Reporter.
type CounterReader interface {
	// Counters names the counters, in the order ReadCounters fills dst.
	Counters() []string
	ReadCounters(ctx context.Context, c engine.Conn, dst []int64) error
}

// Reporter is implemented by workloads with headline figures of their
// own (NOPM, tpmC, efficiency). The runner calls Metrics for every
// interval, for the live lines and the result file, and once for the
// whole measured phase.
type Reporter interface {
	Metrics(s Span) []result.Metric
}

// BatchUnit is implemented by workloads whose batches with the same index
// in every table form one unit of data, like TPC-C's warehouses: prepare
// then reports progress in units done ("3/10 warehouses").
type BatchUnit interface {
	BatchUnit() string
}

// Noter is implemented by workloads whose options call for a remark the
// user sees before any work, such as a scale below the specification's
// minimum. prepare and run print each note on a line of its own.
type Noter interface {
	// Notes returns the remarks for the options set, none when there is
	// nothing to say.
	Notes() []string
}

// DataOptioner is implemented by workloads whose initial data depends on
// some of their options: the number and size of tables, a scale factor,
// the data's seed, what the tables are declared with. Prepare records
// their values with the tables; every run, check and plan cell refuses,
// before any work, a value that differs from the recorded one. Options
// that only shape what a run does (mixes, access distributions) are not
// among them.
type DataOptioner interface {
	// DataOptions names the options (flags) that define the data.
	DataOptions() []string
}

// Answerer is a workload whose ops are analytic queries that the runner
// can time itself (the analytic timing model, --tries): it runs one op by
// name on a connection and returns the answer's rows, each value as text
// written alike by every engine, so that answers compare across engines.
type Answerer interface {
	// AnswerOps are the ops the timing model runs, in order (the
	// workload's options may choose them).
	AnswerOps() ([]string, error)
	// Answer runs op on c and returns its rows. It honours ctx's
	// deadline (the timing model's --query-timeout).
	Answer(ctx context.Context, c engine.Conn, op string) ([][]string, error)
}

// Dumper is implemented by workloads that can write the initial data
// prepare would load to a file, so that an engine's own bulk-load tool
// (psql's \copy, a program of insertMany calls) can load exactly the same
// rows and be timed against dbarena's load. DumpFormat says what the file
// holds; Dump writes it to w and returns the number of rows written.
// Dump reads only the options that define the data (DataOptioner).
type Dumper interface {
	DumpFormat() string
	Dump(ctx context.Context, w io.Writer) (rows int64, err error)
}

// FamilyValidator is a legacy family implementation that refuses option
// values its family cannot run (Spec.Supports).
type FamilyValidator interface {
	ValidateFamily() []error
}

// Bound is a legacy family implementation: Base is the registered
// workload it was built from.
type Bound interface {
	Base() Legacy
}

// Binding is embedded by a legacy family implementation: it forwards
// Base, Meta, Flags, Ops and Tables to Of.
type Binding[W Legacy] struct {
	Of W
}

// Base returns the registered workload.
func (b Binding[W]) Base() Legacy { return b.Of }

// Meta returns the registration record.
func (b Binding[W]) Meta() Meta { return b.Of.Meta() }

// Flags returns the registered workload's options.
func (b Binding[W]) Flags() *pflag.FlagSet { return b.Of.Flags() }

// Ops lists the operations, the same in every family.
func (b Binding[W]) Ops() []Op { return b.Of.Ops() }

// Tables are the registered workload's declared tables.
func (b Binding[W]) Tables(d engine.Dialect) []Table { return b.Of.Tables(d) }

// Adapt makes a Workload of a Legacy one.
func Adapt(l Legacy) Workload { return &adapted{l} }

// Unadapt returns the Legacy workload w was made of by Adapt, or nil.
func Unadapt(w Workload) Legacy {
	if a, ok := w.(*adapted); ok {
		return a.l
	}
	if f, ok := w.(*familyImpl); ok {
		return Unadapt(f.Workload)
	}
	return nil
}

// RegisterLegacyFamily is RegisterFamily for a Legacy implementation
// built on a Legacy registered workload.
func RegisterLegacyFamily(name string, f engine.Family, build func(base Legacy) Legacy) {
	RegisterFamily(name, f, func(base Workload) Workload { return Adapt(build(Unadapt(base))) })
}

type adapted struct{ l Legacy }

func (a *adapted) Define() Spec {
	l := a.l
	s := Spec{Meta: l.Meta(), Options: l.Flags(), Tables: l.Tables, Ops: l.Ops()}
	var base Legacy = l
	if b, ok := l.(Bound); ok {
		base = b.Base()
	}
	if v, ok := l.(Validator); ok {
		s.Validate = v.Validate
	}
	if v, ok := l.(FamilyValidator); ok {
		s.Supports = func(engine.Capabilities) []error { return v.ValidateFamily() }
	}
	if v, ok := l.(IsolationChecker); ok {
		s.CheckIsolation = v.CheckIsolation
	}
	if v, ok := base.(Noter); ok {
		s.Notes = v.Notes()
	}
	if v, ok := base.(DataOptioner); ok {
		s.DataOptions = v.DataOptions()
	}
	if v, ok := l.(DataOptioner); ok {
		s.DataOptions = v.DataOptions()
	}
	if v, ok := l.(BatchUnit); ok {
		s.BatchUnit = v.BatchUnit()
	}
	if v, ok := l.(LoadFinisher); ok {
		s.FinishLoad = v.FinishLoad
	}
	if v, ok := l.(Installer); ok {
		s.Install, s.Uninstall = v.Install, v.Uninstall
	}
	if v, ok := l.(Checker); ok {
		s.Check = v.Check
	}
	if v, ok := l.(CounterReader); ok {
		s.Counters = &Counters{Names: v.Counters(), Read: v.ReadCounters}
	}
	if v, ok := l.(Reporter); ok {
		sp := Span{Length: time.Minute, Final: true}
		for _, op := range s.Ops {
			h := histogram.New()
			h.RecordValue(1000)
			sp.Ops = append(sp.Ops, OpSpan{Name: op.Name, Count: 1, Hist: h})
		}
		if s.Counters != nil {
			sp.Counters = make([]int64, len(s.Counters.Names))
		}
		for _, m := range v.Metrics(sp) {
			s.Metrics = append(s.Metrics, m.Name)
		}
	}
	if v, ok := l.(RunDefaulter); ok {
		d := v.RunDefaults()
		s.RunDefaults = &d
	}
	if v, ok := l.(Retryer); ok {
		s.Retryable = v.Retryable
	}
	if v, ok := l.(Answerer); ok {
		s.Answers = &Answers{Ops: v.AnswerOps, Answer: v.Answer}
	}
	if v, ok := l.(Dumper); ok {
		s.Dump = &Dump{Format: v.DumpFormat(), Write: v.Dump}
	}
	return s
}

func (a *adapted) Open(context.Context, RunEnv) (*Run, error) {
	r := &Run{NewWorker: a.l.NewWorker}
	if v, ok := a.l.(Reporter); ok {
		r.Metrics = func(s Span) []result.Metric { return v.Metrics(s) }
	}
	return r, nil
}

var _ = io.Discard
