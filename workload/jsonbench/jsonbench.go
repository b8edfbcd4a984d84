package jsonbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

func init() { workload.Register(meta()) }

func meta() workload.Meta {
	return workload.Meta{
		Name:        "jsonbench",
		Description: "JSON analytics (ClickHouse's JSONBench): generated Bluesky firehose events, one JSON document per row, JSONBench's five queries Q1–Q5",
		Version:     "1",
		New:         func() workload.Workload { return New() },
	}
}

// Table is the events table (collection), named as JSONBench's.
const Table = "bluesky"

// Column is the JSON column, named as JSONBench's.
const Column = "data"

// batchDocs is the number of events in one batch of the initial data.
const batchDocs = 5000

// MaxDocs bounds --docs: ten times JSONBench's largest size.
const MaxDocs = 10_000_000_000

// JSONBench is a workload, and runs its queries on SQL engines.
var (
	_ workload.Workload = (*JSONBench)(nil)
	_ jsondoc.Querier   = (*JSONBench)(nil)
)

type options struct {
	docs     int64
	seedData uint64
	query    string
}

// JSONBench is the workload with its options, and its implementation for
// SQL engines. The implementation for MongoDB (workload/jsonbench/mongo)
// shares its options, data and queries. It keeps no state of a run.
type JSONBench struct {
	opts options
	fs   *pflag.FlagSet
}

// New returns the workload with default options.
func New() *JSONBench {
	w := &JSONBench{fs: pflag.NewFlagSet("jsonbench", pflag.ContinueOnError)}
	o := &w.opts
	w.fs.Int64Var(&o.docs, "docs", 1000000, "events to generate (JSONBench's sizes: 1000000, 10000000, 100000000, 1000000000)")
	w.fs.Uint64Var(&o.seedData, "seed-data", 0, "seed of the generated events")
	w.fs.StringVar(&o.query, "query", "all", "the queries each worker runs in turn: all, or a comma-separated list of "+QueryNames())
	return w
}

// Define is the workload on SQL engines: its options, of which --docs
// and --seed-data define the data; the bluesky table; one op per query;
// the queries as the analytic timing model's (--query's, in order); and
// the events as a file for psql's \copy (Dump).
func (w *JSONBench) Define() workload.Spec {
	return workload.Spec{
		Meta:        meta(),
		Options:     w.fs,
		Validate:    w.validate,
		DataOptions: []string{"docs", "seed-data"},
		Tables: func(engine.Dialect) []workload.Table {
			return w.DocTables(func(g *Generator) func(i int64) any {
				var buf []byte
				return func(i int64) any {
					buf = g.AppendDoc(buf[:0], i)
					return json.RawMessage(buf)
				}
			})
		},
		Ops: ops(),
		Answers: &workload.Answers{Ops: w.answerOps, Answer: func(ctx context.Context, c engine.Conn, op string) ([][]string, error) {
			return jsondoc.Answer(ctx, w, c, op)
		}},
		Dump: &workload.Dump{Format: dumpFormat, Write: func(ctx context.Context, out io.Writer) (int64, error) {
			g := w.Generator()
			return jsondoc.Dump(ctx, g.Docs(), g.ID, g.AppendDoc, out)
		}},
	}
}

// dumpFormat is what Dump writes (Spec.Dump).
const dumpFormat = "the bluesky table in PostgreSQL's COPY text format, one event a line: its id, a tab, and its JSON document " +
	"(the bytes prepare loads, every backslash doubled); psql loads it with \\copy bluesky (id, data) FROM 'FILE'"

// Open starts a run on an SQL engine: its workers run --query's queries
// in turn and share nothing.
func (w *JSONBench) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: func(_ context.Context, c engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
		return w.NewWorker(c, env, w)
	}}, nil
}

// validate reports every bad option at once.
func (w *JSONBench) validate() []error {
	var errs []error
	o := &w.opts
	bad := func(flag string, v any, why string) {
		errs = append(errs, &workload.OptionError{Flag: flag, Value: fmt.Sprint(v), Err: why})
	}
	if o.docs < 1 {
		bad("docs", o.docs, "must be at least 1")
	}
	if o.docs > MaxDocs {
		bad("docs", o.docs, fmt.Sprintf("at most %d", int64(MaxDocs)))
	}
	if _, err := jsondoc.ParseList(queries, o.query); err != nil {
		bad("query", o.query, err.Error())
	}
	return errs
}

// CheckOptions is what every family's workers check first: the first
// error of Spec.Validate, if any.
func (w *JSONBench) CheckOptions() error {
	if errs := w.validate(); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// Docs is the number of events the options ask for.
func (w *JSONBench) Docs() int64 { return w.opts.docs }

// Generator returns the generator of the events the options ask for.
func (w *JSONBench) Generator() *Generator { return NewGenerator(w.opts.seedData, w.opts.docs) }

// QueryList is --query's queries, in the order the workers run them.
func (w *JSONBench) QueryList() ([]Query, error) { return jsondoc.ParseList(queries, w.opts.query) }

func (w *JSONBench) answerOps() ([]string, error) { return jsondoc.OpNames(queries, w.opts.query) }

// NewWorker returns a worker running --query's queries in turn on c
// through run, a family's Querier: family implementations use it.
func (w *JSONBench) NewWorker(c engine.Conn, env workload.WorkerEnv, run jsondoc.Querier) (workload.Worker, error) {
	if err := w.CheckOptions(); err != nil {
		return nil, err
	}
	qs, _ := w.QueryList()
	return jsondoc.NewWorker(c, env, run, queries, qs), nil
}

// ops are the queries, one op each, in JSONBench's order.
func ops() []workload.Op { return jsondoc.Ops(queries) }

// Declared is the bluesky table: the event's number as the primary key
// (id; _id on MongoDB) and the event as a JSON document (jsonb on
// PostgreSQL, JSON on MySQL and MariaDB, JSON text on SQLite) that is, on
// MongoDB, the document itself; and JSONBench's one index, on kind,
// commit.operation, commit.collection, did and time_us (as an integer:
// JSONBench's PostgreSQL index has the time as a timestamp, MongoDB's
// the integer). The text keys' sizes let MySQL and MariaDB put the four
// generated columns in one index (3,072 bytes at most).
func Declared() *schema.Table {
	return jsondoc.Declare(Table, Column, schema.Index{Name: "bluesky_idx", Keys: []schema.Key{
		{Column: Column, Path: []string{"kind"}, Size: 16},
		{Column: Column, Path: []string{"commit", "operation"}, Size: 16},
		{Column: Column, Path: []string{"commit", "collection"}, Size: 128},
		{Column: Column, Path: []string{"did"}, Size: 64},
		{Column: Column, Path: []string{"time_us"}, As: schema.BigInt},
	}})
}

// DocTables is the bluesky table, declared by Declared, with batches of
// batchDocs events whose data values doc makes: doc is called once for
// each batch and returns the function making event i's value (a
// family's encoding of the same document).
func (w *JSONBench) DocTables(doc func(g *Generator) func(i int64) any) []workload.Table {
	g := w.Generator()
	return []workload.Table{jsondoc.Table(Declared(), g.Docs(), batchDocs, g.ID, func() func(i int64) any { return doc(g) })}
}

// RunQuery implements jsondoc.Querier: query name on c, an SQL
// connection.
func (w *JSONBench) RunQuery(ctx context.Context, c engine.Conn, name string) ([]Row, error) {
	sc, err := engine.SQL(c)
	if err != nil {
		return nil, err
	}
	q, ok := LookupQuery(name)
	if !ok {
		return nil, fmt.Errorf("jsonbench: no query %q (known: %s)", name, QueryNames())
	}
	text, err := SQL(sc.Dialect().Capabilities().Kind, q.Name)
	if err != nil {
		return nil, err
	}
	return jsondoc.RunSQL(ctx, sc, q, text)
}
