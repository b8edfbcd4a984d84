package docolap

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

func init() { workload.Register(meta()) }

func meta() workload.Meta {
	return workload.Meta{
		Name:        "docolap",
		Description: "JSON document analytics (PostgreSQL/MongoDB OLAP study): generated 2015 GitHub events, one JSON document per row, the study's aggregate queries A–D and D′",
		Version:     "2", // 2: on MongoDB each event is the document itself, not nested under doc
		New:         func() workload.Workload { return New() },
	}
}

// Table is the events table (collection).
const Table = "events"

// batchEvents is the number of events in one batch of the initial data.
const batchEvents = 5000

// Docolap is a workload, and runs its queries on SQL engines.
var (
	_ workload.Workload = (*Docolap)(nil)
	_ Querier           = (*Docolap)(nil)
)

// Querier is implemented by the workload on every engine family: it
// runs one query by name on one connection and returns its rows.
type Querier = jsondoc.Querier

type options struct {
	events     int64
	days       int
	seedData   uint64
	query      string
	normalized bool
}

// Docolap is the workload with its options, and its implementation for
// SQL engines. The implementation for MongoDB (workload/docolap/mongo)
// shares its options, data and queries' descriptions. It keeps no state
// of a run: its workers share none.
type Docolap struct {
	opts options
	fs   *pflag.FlagSet
}

// New returns the workload with default options.
func New() *Docolap {
	w := &Docolap{fs: pflag.NewFlagSet("docolap", pflag.ContinueOnError)}
	o := &w.opts
	w.fs.Int64Var(&o.events, "events", 1000000, "events to generate (about 580,000 make a day of 2015); exclusive with --days")
	w.fs.IntVar(&o.days, "days", 0, "days of events to generate from 2015-01-01 (weekdays 644,000 events, weekends 420,000), instead of --events")
	w.fs.Uint64Var(&o.seedData, "seed-data", 0, "seed of the generated events")
	w.fs.StringVar(&o.query, "query", "all", "the queries each worker runs in turn: all, or a comma-separated list of "+QueryNames())
	w.fs.BoolVar(&o.normalized, "normalized", false, "store the events flattened into typed columns and a commits table instead of JSON documents, with the queries in plain SQL (SQL engines only)")
	return w
}

// Define is the workload on SQL engines: its options, of which the
// number of events (--events or --days), their seed and their form
// (--normalized) define the data; the events table (or the normalized
// form's tables); one op per query; the queries as the analytic timing
// model's (Answers, --query's, in order); and the events as a file for
// psql's \copy (Dump).
func (w *Docolap) Define() workload.Spec {
	return workload.Spec{
		Meta:        meta(),
		Options:     w.fs,
		Validate:    w.validate,
		DataOptions: []string{"events", "days", "seed-data", "normalized"},
		Tables:      w.tables,
		Ops:         ops(),
		Answers: &workload.Answers{Ops: w.answerOps, Answer: func(ctx context.Context, c engine.Conn, op string) ([][]string, error) {
			return AnswerWith(ctx, w, c, op)
		}},
		Dump: &workload.Dump{Format: dumpFormat, Write: w.dump},
	}
}

// Open starts a run on an SQL engine: its workers run --query's queries
// in turn (NewRunner) and share nothing.
func (w *Docolap) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: w.newWorker}, nil
}

// MaxEvents bounds --events: as many as --days gives at its largest.
var MaxEvents = EventsForDays(maxDays)

// validate reports every bad option at once.
func (w *Docolap) validate() []error {
	var errs []error
	o := &w.opts
	bad := func(flag string, v any, why string) {
		errs = append(errs, &workload.OptionError{Flag: flag, Value: fmt.Sprint(v), Err: why})
	}
	if w.fs.Changed("events") && w.fs.Changed("days") {
		bad("days", o.days, fmt.Sprintf("give --events (%d) or --days, not both", o.events))
	}
	if o.events < 1 {
		bad("events", o.events, "must be at least 1")
	}
	if o.events > MaxEvents {
		bad("events", o.events, fmt.Sprintf("at most %d (the events of --days %d)", MaxEvents, maxDays))
	}
	if w.fs.Changed("days") && (o.days < 1 || o.days > maxDays) {
		bad("days", o.days, fmt.Sprintf("must be between 1 and %d", maxDays))
	}
	if _, err := w.queryList(); err != nil {
		bad("query", o.query, err.Error())
	}
	return errs
}

// Events is the number of events the options ask for.
func (w *Docolap) Events() int64 {
	if w.opts.days > 0 {
		return EventsForDays(w.opts.days)
	}
	return w.opts.events
}

// Generator returns the generator of the events the options ask for.
func (w *Docolap) Generator() *Generator { return NewGenerator(w.opts.seedData, w.Events()) }

// queryList is --query as queries.
func (w *Docolap) queryList() ([]Query, error) { return jsondoc.ParseList(queries, w.opts.query) }

// ops are the queries, one op each, in the study's order.
func ops() []workload.Op { return jsondoc.Ops(queries) }

// Declared is the events table: the event's id (the number its "id"
// holds) as the primary key, the event as a JSON document (jsonb on
// PostgreSQL, JSON on MySQL and MariaDB, JSON text on SQLite) that is, on
// MongoDB, the document itself (schema.Column.Document: its fields at the
// top level, beside _id), and the study's five indexes: on the type,
// repo.name, payload.action, actor.login and, as an integer,
// payload.issue.comments (on MongoDB the top-level type, repo.name, …).
func Declared() *schema.Table {
	return jsondoc.Declare(Table, "doc",
		schema.Index{Name: "events_repo_name", Keys: []schema.Key{schema.Path("doc", "repo", "name")}},
		schema.Index{Name: "events_action", Keys: []schema.Key{schema.Path("doc", "payload", "action")}},
		schema.Index{Name: "events_type", Keys: []schema.Key{schema.Path("doc", "type")}},
		schema.Index{Name: "events_actor_login", Keys: []schema.Key{schema.Path("doc", "actor", "login")}},
		schema.Index{Name: "events_comments", Keys: []schema.Key{{Column: "doc", Path: []string{"payload", "issue", "comments"}, As: schema.BigInt}}},
	)
}

// tables is the events table with its events as JSON (AppendEvent),
// batchEvents a batch; with --normalized, the normalized form's tables
// (NormTables).
func (w *Docolap) tables(engine.Dialect) []workload.Table {
	if w.opts.normalized {
		return w.NormTables()
	}
	return w.EventTables(func(g *Generator) func(i int64) any {
		var buf []byte
		return func(i int64) any {
			buf = g.AppendEvent(buf[:0], i)
			return json.RawMessage(buf)
		}
	})
}

// EventTables is the events table, declared by Declared, with batches of
// batchEvents events whose doc values doc makes: doc is called once for
// each batch's rows and returns the function making event i's value (a
// family's encoding of the same document). The id column is the event's
// ID. The implementation for MongoDB loads BSON made by AppendEventBSON
// through it.
func (w *Docolap) EventTables(doc func(g *Generator) func(i int64) any) []workload.Table {
	g := w.Generator()
	return []workload.Table{jsondoc.Table(Declared(), g.Events(), batchEvents, g.ID, func() func(i int64) any { return doc(g) })}
}

// RunQuery implements Querier: query name on c, an SQL connection, on
// the JSON table or, with --normalized, on the normalized ones.
func (w *Docolap) RunQuery(ctx context.Context, c engine.Conn, name string) ([]Row, error) {
	sc, err := engine.SQL(c)
	if err != nil {
		return nil, err
	}
	if w.opts.normalized {
		return RunNormSQL(ctx, sc, name)
	}
	return RunSQL(ctx, sc, name)
}

// newWorker returns a worker that runs --query's queries in turn on c,
// starting at the list's entry number ID (modulo its length), so that
// workers spread over them.
func (w *Docolap) newWorker(_ context.Context, c engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	if err := w.CheckOptions(); err != nil {
		return nil, err
	}
	return NewRunner(w, c, env, w)
}

// CheckOptions is what every family's workers check first: the first
// error of Spec.Validate, if any.
func (w *Docolap) CheckOptions() error {
	if errs := w.validate(); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// NewRunner returns a worker running w's --query list on c through run,
// a family's Querier. Family implementations use it for their workers.
func NewRunner(w *Docolap, c engine.Conn, env workload.WorkerEnv, run Querier) (workload.Worker, error) {
	qs, err := w.queryList()
	if err != nil {
		return nil, &workload.OptionError{Flag: "query", Value: w.opts.query, Err: err.Error()}
	}
	return jsondoc.NewWorker(c, env, run, queries, qs), nil
}

// QueryList is --query's queries, in the order the workers run them.
func (w *Docolap) QueryList() ([]Query, error) { return w.queryList() }
