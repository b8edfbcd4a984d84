package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/shard"
	"github.com/dbarena/dbarena/workload"
)

// MetaTable records every table dbarena created, so that cleanup drops
// only those and run can tell a prepared target from a foreign one.
const MetaTable = engine.MetaTable

// Table states in MetaTable.
const (
	stateLoading = engine.StateLoading
	stateReady   = engine.StateReady
)

// Sentinel errors of prepare, run and cleanup.
var (
	ErrAlreadyPrepared = errors.New("already prepared")
	ErrNotPrepared     = errors.New("not prepared")
	ErrNotOurs         = errors.New("not created by dbarena")
	ErrShape           = errors.New("table has another shape")
	// ErrBeingPrepared is a table another prepare is creating or
	// loading: its process runs still (or runs on another host, where
	// dbarena cannot look).
	ErrBeingPrepared = errors.New("being prepared")
)

// TableError is a setup problem with one table.
type TableError struct {
	Table string
	Err   error
	Hint  string
}

func (e *TableError) Error() string {
	msg := fmt.Sprintf("table %s: %v", e.Table, e.Err)
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

func (e *TableError) Unwrap() error { return e.Err }

// RolledBackError is a Prepare that failed, or was interrupted, after it
// had created tables: it dropped them again. Dropped are the tables it
// dropped, Left those it could not drop (still recorded as dbarena's, so
// cleanup drops them), each in creation order.
type RolledBackError struct {
	Err           error
	Dropped, Left []string
}

func (e *RolledBackError) Error() string { return e.Err.Error() + "; rolled back: " + e.Undone() }

// Undone says what the rollback dropped and left.
func (e *RolledBackError) Undone() string {
	var parts []string
	if len(e.Dropped) > 0 {
		parts = append(parts, "dropped "+strings.Join(e.Dropped, ", ")+", which this prepare had created")
	}
	if len(e.Left) > 0 {
		parts = append(parts, "left "+strings.Join(e.Left, ", ")+", which dbarena cleanup drops")
	}
	if len(parts) == 0 {
		return "nothing was created"
	}
	return strings.Join(parts, "; ")
}

func (e *RolledBackError) Unwrap() error { return e.Err }

// PrepareConfig controls loading.
type PrepareConfig struct {
	// LoadThreads is the number of parallel loaders, each with its own
	// connection (default 4).
	LoadThreads int
	// Progress, when set, is called about every ProgressEvery (default
	// 1 s) from a separate goroutine, and once more when loading ends.
	Progress      func(LoadProgress)
	ProgressEvery time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Shard, when set, loads the shard's part of a sharded prepare
	// (package shard): shard 0 creates the tables, every shard loads its
	// batches of each (workload.Shard.Owns), then shard 0 builds their
	// indexes and keys once all have loaded. The shards meet at
	// barriers in the target; a shard that fails stops the others, and
	// shard 0 rolls back what it created.
	Shard *shard.Spec
}

// LoadProgress is a snapshot of a running prepare.
type LoadProgress struct {
	Rows         int64
	Batches      int
	TotalBatches int
	// Unit names what batches with the same index in every table form
	// ("warehouses") for a workload with a Spec.BatchUnit; UnitsDone of Units are in.
	Unit             string
	UnitsDone, Units int
	Elapsed          time.Duration
	Done             bool
}

// PrepareStats summarises a finished prepare.
type PrepareStats struct {
	Tables int
	Rows   int64
	// Load is the time until the last row was in; Indexes the time after
	// it, spent on the AfterLoad statements still running then (those of
	// tables loaded earlier overlap the load).
	Load     time.Duration
	Indexes  time.Duration
	Duration time.Duration
	// Times is where the time went: generating rows, writing them,
	// finishing tables (summed over loaders), foreign keys.
	Times LoadTimes
	// Sizes are the tables' sizes on disk once prepared, in creation
	// order, when the engine's Catalog is an engine.TableSizer; SizeNote
	// is its note on them. SizeErr says why there are none (the engine
	// cannot tell, or asking failed), which does not fail the prepare.
	// SizeTime is how long reading them took (SQLite's dbstat reads
	// every page), after Duration.
	Sizes    []TableStat
	SizeNote string
	SizeErr  error
	SizeTime time.Duration
}

// TableStat is one prepared table: its size on disk and the rows the
// prepare loaded into it.
type TableStat struct {
	engine.TableSize
	Rows int64
}

// tablesOf is w's tables for d, with the names and columns of declared
// tables filled in from their schemas.
func tablesOf(w workload.Workload, d engine.Dialect) []workload.Table {
	tables := w.Define().Tables(d)
	for i := range tables {
		tables[i] = tables[i].Resolve()
	}
	return tables
}

// validateSchemas reports every problem of the tables' declarations at
// once (a workload's programming error, found before anything is
// created).
func validateSchemas(tables []workload.Table) error {
	var decl []*schema.Table
	for i, t := range tables {
		if t.Schema == nil {
			return fmt.Errorf("table %d (%s) has no schema", i+1, t.Name)
		}
		if t.Name != t.Schema.Name {
			return fmt.Errorf("table %d is named %s, its schema %s", i+1, t.Name, t.Schema.Name)
		}
		decl = append(decl, t.Schema)
	}
	if errs := schema.Validate(decl); len(errs) > 0 {
		return fmt.Errorf("invalid table declarations: %w", errors.Join(errs...))
	}
	return nil
}

type tableState struct {
	exists bool
	meta   string // "" when MetaTable has no row for it
	rec    engine.MetaRecord
}

func inspect(ctx context.Context, cat engine.Catalog, name string) (tableState, error) {
	var st tableState
	var err error
	if st.exists, err = cat.TableExists(ctx, name); err != nil {
		return st, err
	}
	rec, ok, err := cat.Meta(ctx, name)
	if err != nil {
		return st, fmt.Errorf("reading %s: %w", MetaTable, err)
	}
	if ok {
		st.meta, st.rec = rec.State, rec
	}
	return st, nil
}

// judgement is how a recorded table that exists compares with the one
// dbarena created: replaced says why it is another table (its identity is
// not the recorded one), shape what differs from the declaration;
// unconfirmed says why it cannot be told from a copy of dbarena's table
// (the record holds no identity a copy cannot carry: written by an older
// dbarena). All are "" for dbarena's own table.
type judgement struct {
	replaced, shape, unconfirmed string
}

// ours reports whether it is the table dbarena created: the identity it
// recorded and the declared shape.
func (j judgement) ours() bool { return j.replaced == "" && j.shape == "" && j.unconfirmed == "" }

// other reports whether it is another table than dbarena's: its
// identity or its shape differs.
func (j judgement) other() bool { return j.replaced != "" || j.shape != "" }

// why is the reasons a table is not dbarena's, for messages.
func (j judgement) why() string {
	var r []string
	for _, s := range []string{j.replaced, j.shape} {
		if s != "" {
			r = append(r, s)
		}
	}
	return strings.Join(r, "; ")
}

// hint says why the table is not dbarena's, or cannot be confirmed to
// be, for a *TableError.
func (j judgement) hint() string {
	if j.other() {
		return "it is not the one dbarena created: " + j.why()
	}
	return "dbarena cannot tell it from a copy of the table it created: " + j.unconfirmed + "; if it is dbarena's, drop it yourself and prepare again"
}

// judge compares the existing table t with st's record of it
// (engine.CompareIdentity; a table still loading on its marker alone).
func judge(ctx context.Context, cat engine.Catalog, t workload.Table, st tableState) (judgement, error) {
	var j judgement
	id, err := cat.Identity(ctx, t.Name)
	if err != nil {
		return j, err
	}
	switch {
	case st.rec.Identity == "" && st.meta == stateLoading && st.rec.Preparer != "":
		// A prepare stopped between creating the table and recording
		// its identity: its shape alone tells.
	case st.rec.Identity == "":
		j.unconfirmed = MetaTable + " holds no identity of it (recorded by an older dbarena)"
	default:
		v := engine.CompareIdentity(st.rec.Identity, id, st.meta == stateLoading)
		j.replaced, j.unconfirmed = v.Other, v.Unconfirmed
	}
	if j.shape, err = cat.MatchShape(ctx, t.Schema); err != nil {
		return j, err
	}
	return j, nil
}

// VerifyPrepared checks that every table of w exists, was loaded to the
// end by dbarena, is still the table dbarena created (its identity, which
// no copy carries, else ErrNotOurs; ErrNotOurs too when the record holds
// none a copy cannot carry) and has the declared columns (else ErrShape), and that w's
// data options are those the data was prepared with (else a
// *workload.OptionError per option that differs).
func VerifyPrepared(ctx context.Context, c engine.Conn, d engine.Dialect, w workload.Workload) error {
	w, err := workload.ForFamily(w, d)
	if err != nil {
		return err
	}
	cat := c.Catalog()
	for _, t := range tablesOf(w, d) {
		st, err := inspect(ctx, cat, t.Name)
		if err != nil {
			return err
		}
		switch {
		case !st.exists:
			hint := "it does not exist; run dbarena prepare " + w.Define().Meta.Name + " with the same options"
			if flags := dataFlags(w); flags != "" {
				hint += ": " + flags
			}
			return &TableError{Table: t.Name, Err: ErrNotPrepared, Hint: hint}
		case st.meta == "":
			return &TableError{Table: t.Name, Err: ErrNotOurs, Hint: MetaTable + " has no record of it; prepare into an empty database"}
		case st.meta != stateReady:
			if by, _ := stillPreparing(st.rec); by != "" {
				return &TableError{Table: t.Name, Err: ErrNotPrepared, Hint: "it is being prepared " + by}
			}
			return &TableError{Table: t.Name, Err: ErrNotPrepared, Hint: "its load did not finish; run dbarena cleanup, then prepare"}
		}
		j, err := judge(ctx, cat, t, st)
		if err != nil {
			return err
		}
		switch {
		case j.replaced != "":
			return &TableError{Table: t.Name, Err: ErrNotOurs, Hint: j.hint()}
		case j.shape != "":
			return &TableError{Table: t.Name, Err: ErrShape, Hint: j.shape}
		case j.unconfirmed != "":
			return &TableError{Table: t.Name, Err: ErrNotOurs, Hint: j.hint()}
		}
		if err := sameData(w, st.rec); err != nil {
			return err
		}
	}
	return nil
}

// dataFlags is the options that define w's data and are not at their
// defaults, as flags sorted by name ("--events 4000 --normalized=true"):
// what a prepare of the same data is given.
func dataFlags(w workload.Workload) string {
	vals := workload.DataOptionValues(w)
	names := make([]string, 0, len(vals))
	for name := range vals {
		names = append(names, name)
	}
	slices.Sort(names)
	var out []string
	for _, name := range names {
		f := w.Define().Options.Lookup(name)
		if f == nil || f.Value.String() == f.DefValue {
			continue
		}
		if f.Value.Type() == "bool" {
			out = append(out, "--"+name+"="+vals[name])
		} else {
			out = append(out, "--"+name+" "+vals[name])
		}
	}
	return strings.Join(out, " ")
}

// sameData compares the options that define w's data with those rec was
// prepared with, and reports every one that differs as a
// *workload.OptionError naming the option, the prepared value and the
// asked one. A record without options (an older version's) is not
// compared.
func sameData(w workload.Workload, rec engine.MetaRecord) error {
	if rec.Options == nil {
		return nil
	}
	asked := workload.DataOptionValues(w)
	names := make([]string, 0, len(asked))
	for name := range asked {
		names = append(names, name)
	}
	slices.Sort(names)
	flag := func(name, v string) string {
		if f := w.Define().Options.Lookup(name); f != nil && f.Value.Type() == "bool" {
			return "--" + name + "=" + v
		}
		return "--" + name + " " + v
	}
	var errs []error
	for _, name := range names {
		prepared, ok := rec.Options[name]
		if !ok || prepared == asked[name] {
			continue
		}
		f := w.Define().Options.Lookup(name)
		was, fix := flag(name, prepared), "pass "+flag(name, prepared)
		if f != nil && prepared == f.DefValue && f.Value.Type() != "bool" {
			// Its default may be no value one can pass (--days 0).
			was, fix = was+" (its default)", "leave --"+name+" out"
		}
		errs = append(errs, &workload.OptionError{Flag: name, Value: asked[name],
			Err: fmt.Sprintf("does not match the data: prepared with %s; run dbarena cleanup and prepare again, or %s", was, fix)})
	}
	return errors.Join(errs...)
}

// Prepare creates w's tables and loads their initial data in parallel,
// running each table's AfterLoad statements as soon as its rows are in and
// a Spec.FinishLoad once all are.
// On failure or cancellation it drops the tables it created, so nothing
// half-loaded is left behind. Its PrepareStats say where the time went
// (LoadTimes) and, read once every table is ready, how much disk each
// table takes; sizes that cannot be read are no failure (SizeErr).
func Prepare(ctx context.Context, eng engine.Engine, w workload.Workload, cfg PrepareConfig) (stats PrepareStats, err error) {
	if sp := cfg.Shard; sp != nil {
		defer func() {
			var fe *shard.FailedError
			var ie *shard.IncompleteError
			if err != nil && !errors.As(err, &fe) && !errors.As(err, &ie) {
				// The others stop waiting for this shard.
				fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				defer cancel()
				if c, cerr := eng.Connect(fctx); cerr == nil {
					_ = sp.Fail(fctx, c.Catalog(), err.Error())
					c.Close()
				}
			}
		}()
	}
	return prepare(ctx, eng, w, cfg)
}

func prepare(ctx context.Context, eng engine.Engine, w workload.Workload, cfg PrepareConfig) (PrepareStats, error) {
	var stats PrepareStats
	if cfg.LoadThreads <= 0 {
		cfg.LoadThreads = 4
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	d := eng.Dialect()
	w, err := workload.ForFamily(w, d)
	if err != nil {
		return stats, err
	}
	tables := tablesOf(w, d)
	if err := validateSchemas(tables); err != nil {
		return stats, err
	}
	start := cfg.Now()

	c, err := eng.Connect(ctx)
	if err != nil {
		return stats, err
	}
	defer c.Close()
	cat := c.Catalog()
	sp := cfg.Shard
	config := "workload=" + w.Define().Meta.Name + "\n" + dataFlags(w)
	if sp != nil {
		stop, err := sp.Heartbeat(ctx, eng)
		if err != nil {
			return stats, err
		}
		defer stop()
		if _, err := sp.Arrive(ctx, cat, "prepare", config); err != nil {
			return stats, err
		}
		if sp.Index != 0 {
			return prepareShard(ctx, eng, cat, w, tables, cfg, start, config)
		}
	}

	// Look before touching anything: every problem is reported before a
	// single table is created.
	var redo []engine.MetaRecord
	for _, t := range tables {
		st, err := inspect(ctx, cat, t.Name)
		if err != nil {
			return stats, err
		}
		if st.meta == stateLoading {
			if by, _ := stillPreparing(st.rec); by != "" {
				return stats, &TableError{Table: t.Name, Err: fmt.Errorf("%w %s", ErrBeingPrepared, by), Hint: busyHint}
			}
		}
		if st.exists && st.meta != "" {
			j, err := judge(ctx, cat, t, st)
			if err != nil {
				return stats, err
			}
			if !j.ours() {
				return stats, &TableError{Table: t.Name, Err: ErrNotOurs, Hint: j.hint() + "; dbarena will not touch it"}
			}
		}
		switch {
		case st.exists && st.meta == "":
			return stats, &TableError{Table: t.Name, Err: ErrNotOurs, Hint: "it exists but " + MetaTable + " has no record of it; dbarena will not touch it"}
		case st.meta == stateReady && st.exists:
			return stats, &TableError{Table: t.Name, Err: ErrAlreadyPrepared, Hint: "run dbarena cleanup " + w.Define().Meta.Name + " first to load it again"}
		case st.meta != "":
			redo = append(redo, st.rec) // an earlier load that did not finish
		}
	}
	for _, rec := range redo {
		// Unless another prepare has taken it over since.
		if busy := otherPreparer(ctx, cat, rec.Table, rec.Preparer); busy != nil {
			return stats, busy
		}
		if err := dropOurs(ctx, cat, rec.Table); err != nil {
			return stats, err
		}
	}

	var created []string
	fail := func(err error) (PrepareStats, error) {
		if len(created) == 0 && (errors.Is(err, ErrBeingPrepared) || errors.Is(err, ErrAlreadyPrepared)) {
			return stats, err // another prepare's: nothing of this one to roll back
		}
		// The caller's context may be what failed: clean up on a fresh one.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		rb := &RolledBackError{Err: err}
		cc, cerr := eng.Connect(cctx)
		if cerr != nil {
			rb.Left = slices.Clone(created)
			return stats, rb
		}
		defer cc.Close()
		// Reverse order: tables referenced by foreign keys go last.
		for i := len(created) - 1; i >= 0; i-- {
			if dropOurs(cctx, cc.Catalog(), created[i]) != nil {
				rb.Left = append(rb.Left, created[i])
			} else {
				rb.Dropped = append(rb.Dropped, created[i])
			}
		}
		slices.Reverse(rb.Dropped)
		slices.Reverse(rb.Left)
		if !errors.Is(err, ErrBeingPrepared) { // else the other prepare is about to record its tables
			_ = cc.Catalog().DropMetaIfEmpty(cctx)
		}
		return stats, rb
	}

	createdAt := cfg.Now()
	recs := make([]engine.MetaRecord, len(tables))
	dataOpts := workload.DataOptionValues(w)
	me := newPreparer()
	for i, t := range tables {
		// Recorded before it is created, so that a prepare cut short
		// between the two leaves nothing unrecorded, and another prepare
		// sees this one at work; recorded again with its identity once
		// it exists.
		recs[i] = engine.MetaRecord{Table: t.Name, Workload: w.Define().Meta.Name, State: stateLoading, Created: createdAt, Options: dataOpts, Preparer: me}
		if err := claim(ctx, cat, recs[i]); err != nil {
			return fail(err)
		}
		if err := cat.CreateTable(ctx, t.Schema); err != nil {
			// Not created: whatever has the name now (a table someone
			// made meanwhile) is not this prepare's to drop.
			_ = cat.DeleteMeta(ctx, t.Name)
			return fail(fmt.Errorf("creating table %s: %w", t.Name, err))
		}
		created = append(created, t.Name)
		if recs[i].Identity, err = cat.Identity(ctx, t.Name); err != nil {
			return fail(err)
		}
		if err := cat.SetMeta(ctx, recs[i]); err != nil {
			return fail(fmt.Errorf("recording table %s: %w", t.Name, err))
		}
	}

	spec := w.Define()
	unit := spec.BatchUnit
	if sp != nil {
		if _, err := sp.Arrive(ctx, cat, "prepare created", config); err != nil {
			return fail(err)
		}
	}
	ld, err := load(ctx, eng, tables, unit, cfg)
	stats.Rows, stats.Times = ld.rows, ld.times
	lastBatch := ld.lastBatch
	if err != nil {
		return fail(err)
	}
	if sp != nil {
		if err := tellRows(ctx, cat, sp, ld.tableRows); err != nil {
			return fail(err)
		}
		if _, err := sp.Arrive(ctx, cat, "prepare loaded", config); err != nil {
			return fail(err)
		}
		// The tables' rows are every shard's.
		if ld.tableRows, err = shardRows(ctx, cat, sp, len(tables)); err != nil {
			return fail(err)
		}
		stats.Rows = 0
		for _, n := range ld.tableRows {
			stats.Rows += n
		}
		lastBatch = cfg.Now()
		for i := range tables {
			if err := afterLoad(ctx, cat, d, &tables[i]); err != nil {
				return fail(err)
			}
		}
	}
	fkStart := cfg.Now()
	if spec.FinishLoad != nil {
		if err := spec.FinishLoad(ctx, c); err != nil {
			return fail(err)
		}
	}
	// Foreign keys once every table is in and finished, in creation order: referenced
	// tables have their keys by then.
	for i := range tables {
		if err := cat.AddForeignKeys(ctx, tables[i].Schema); err != nil {
			return fail(&TableError{Table: tables[i].Name, Err: fmt.Errorf("adding foreign keys: %w", err)})
		}
	}
	stats.Times.ForeignKeys = cfg.Now().Sub(fkStart)
	stats.Load = lastBatch.Sub(start)
	stats.Indexes = cfg.Now().Sub(lastBatch)

	// Recorded ready with the identity of the finished table: building
	// its indexes and keys may have renewed it (MySQL's creation time).
	for i, t := range tables {
		recs[i].State, recs[i].Preparer = stateReady, ""
		if recs[i].Identity, err = cat.Identity(ctx, t.Name); err != nil {
			return fail(err)
		}
		if err := cat.SetMeta(ctx, recs[i]); err != nil {
			return fail(fmt.Errorf("recording table %s: %w", t.Name, err))
		}
	}
	if sp != nil {
		if _, err := sp.Arrive(ctx, cat, "prepare ready", config); err != nil {
			return fail(err)
		}
	}
	stats.Tables = len(tables)
	stats.Duration = cfg.Now().Sub(start)
	sized := cfg.Now()
	stats.Sizes, stats.SizeNote, stats.SizeErr = tableSizes(ctx, cat, tables, ld.tableRows)
	stats.SizeTime = cfg.Now().Sub(sized)
	return stats, nil
}

// tableSizes asks cat, when it is an engine.TableSizer, for the sizes of
// tables, which hold rows[i] rows each.
func tableSizes(ctx context.Context, cat engine.Catalog, tables []workload.Table, rows []int64) ([]TableStat, string, error) {
	sizer, ok := cat.(engine.TableSizer)
	if !ok {
		return nil, "", engine.ErrNoSizes
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Name
	}
	sizes, err := sizer.TableSizes(ctx, names)
	if err != nil {
		return nil, "", err
	}
	out := make([]TableStat, len(sizes))
	for i, s := range sizes {
		out[i] = TableStat{TableSize: s, Rows: rows[i]}
	}
	return out, sizer.SizeNote(), nil
}

type batchJob struct {
	table int // index into the tables
	batch int
}

// loaded is what load did: the rows written (in all and per table), the
// instant the last batch was in and the loaders' times.
type loaded struct {
	rows      int64
	tableRows []int64
	lastBatch time.Time
	times     LoadTimes
}

// load runs every (table, batch) through LoadThreads loaders, each with its
// own connection. The loader that writes a table's last batch runs the
// table's AfterLoad statements at once, so index builds overlap the loading
// of the other tables.
func load(ctx context.Context, eng engine.Engine, tables []workload.Table, unit string, cfg PrepareConfig) (loaded, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan batchJob)
	// A shard loads its batches only; shard 0 finishes the tables once
	// every shard's are in.
	finish := cfg.Shard == nil
	order, units := loadOrder(tables, unit, cfg.Shard)
	total := len(order)
	remaining := make([]atomic.Int64, len(tables))
	// unitLeft[b] counts the tables whose batch b is not in yet.
	unitLeft := make([]atomic.Int64, units)
	for _, j := range order {
		remaining[j.table].Add(1)
		unitLeft[j.batch].Add(1)
	}
	var rows, batches, unitsDone atomic.Int64
	tableRows := make([]atomic.Int64, len(tables))
	times := make([]LoadTimes, cfg.LoadThreads) // each loader's own
	var lastBatch atomic.Int64                  // unix nanoseconds
	start := cfg.Now()
	report := func(done bool) {
		if cfg.Progress != nil {
			p := LoadProgress{Rows: rows.Load(), Batches: int(batches.Load()), TotalBatches: total, Elapsed: cfg.Now().Sub(start), Done: done}
			if unit != "" {
				p.Unit, p.UnitsDone, p.Units = unit, int(unitsDone.Load()), units
			}
			cfg.Progress(p)
		}
	}

	stopProgress := make(chan struct{})
	var progressWG sync.WaitGroup
	if cfg.Progress != nil {
		progressWG.Add(1)
		go func() {
			defer progressWG.Done()
			t := time.NewTicker(cfg.ProgressEvery)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					report(false)
				case <-stopProgress:
					return
				}
			}
		}()
	}

	errs := make([]error, cfg.LoadThreads)
	var wg sync.WaitGroup
	for i := 0; i < cfg.LoadThreads; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := eng.Connect(ctx)
			if err != nil {
				errs[i] = err
				cancel()
				return
			}
			defer c.Close()
			lt := &times[i]
			for j := range jobs {
				t := &tables[j.table]
				t0 := cfg.Now()
				src := newTimedRows(t.Rows(j.batch), cfg.Now, uint64(j.table)<<32^uint64(j.batch))
				t1 := cfg.Now()
				n, err := c.Catalog().BulkLoad(ctx, t.Schema, src)
				if err != nil {
					errs[i] = fmt.Errorf("loading %s batch %d: %w", t.Name, j.batch, err)
					cancel()
					return
				}
				gen := src.Generated()
				lt.Generate += t1.Sub(t0) + gen
				lt.Write += max(cfg.Now().Sub(t1)-gen, 0)
				rows.Add(n)
				tableRows[j.table].Add(n)
				batches.Add(1)
				if unitLeft[j.batch].Add(-1) == 0 {
					unitsDone.Add(1)
				}
				if remaining[j.table].Add(-1) == 0 && finish {
					done := cfg.Now()
					lastBatch.Store(done.UnixNano())
					if err := afterLoad(ctx, c.Catalog(), eng.Dialect(), t); err != nil {
						errs[i] = err
						cancel()
						return
					}
					lt.Finish += cfg.Now().Sub(done)
				}
			}
		}()
	}
feed:
	for _, j := range order {
		select {
		case jobs <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	close(stopProgress)
	progressWG.Wait()
	out := loaded{rows: rows.Load(), tableRows: make([]int64, len(tables))}
	for i := range tableRows {
		out.tableRows[i] = tableRows[i].Load()
	}
	if err := rootErr(errs); err != nil {
		return out, err
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	for _, lt := range times {
		out.times.add(lt)
	}
	// Tables without initial data still get their indexes.
	var empty []*workload.Table
	for i := range tables {
		if tables[i].Batches == 0 && finish {
			empty = append(empty, &tables[i])
		}
	}
	if len(empty) > 0 {
		c, err := eng.Connect(ctx)
		if err != nil {
			return out, err
		}
		defer c.Close()
		t0 := cfg.Now()
		for _, t := range empty {
			if err := afterLoad(ctx, c.Catalog(), eng.Dialect(), t); err != nil {
				return out, err
			}
		}
		out.times.Finish += cfg.Now().Sub(t0)
	}
	report(true)
	out.lastBatch = start
	if ns := lastBatch.Load(); ns != 0 {
		out.lastBatch = time.Unix(0, ns)
	}
	return out, nil
}

// loadOrder is the order the batches of tables are loaded in, and the
// number of units: table by table, so each table's indexes build while
// later tables load; unit by unit for a workload with a Spec.BatchUnit,
// so units (warehouses) complete one after another. A shard of a sharded
// prepare takes its part: every Count-th unit from its Index (a unit's
// batches of every table: a TPC-C warehouse's rows stay together), or
// without units every Count-th batch of that order, so that the shards'
// parts differ by one batch at most.
func loadOrder(tables []workload.Table, unit string, sp *shard.Spec) ([]batchJob, int) {
	units := 0
	for _, t := range tables {
		units = max(units, t.Batches)
	}
	part := workload.Shard{Index: 0, Count: 1}
	if sp != nil {
		part = sp.Shard()
	}
	var order []batchJob
	if unit == "" {
		k := 0
		for ti := range tables {
			for b := 0; b < tables[ti].Batches; b++ {
				if k%part.Count == part.Index {
					order = append(order, batchJob{ti, b})
				}
				k++
			}
		}
		return order, units
	}
	for b := part.Index; b < units; b += part.Count {
		for ti := range tables {
			if b < tables[ti].Batches {
				order = append(order, batchJob{ti, b})
			}
		}
	}
	return order, units
}

// afterLoad builds what one table needs once its rows are in (indexes,
// sequence resets). A build that meets a lock held by a loader (SQLite's
// single writer) waits for it: it is tried again until it runs or ctx
// ends.
func afterLoad(ctx context.Context, cat engine.Catalog, d engine.Dialect, t *workload.Table) error {
	for {
		err := cat.FinishTable(ctx, t.Schema)
		if err == nil {
			return nil
		}
		if d.Classify(err) != engine.ClassSerialization || ctx.Err() != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
	}
}

// rootErr is the first error that is not a cancellation caused by another
// loader's failure, so the cause is reported rather than its echo.
func rootErr(errs []error) error {
	for _, e := range errs {
		if e != nil && !errors.Is(e, context.Canceled) {
			return e
		}
	}
	return firstErr(errs)
}

func firstErr(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// dropOurs drops a table recorded in MetaTable and forgets it.
func dropOurs(ctx context.Context, cat engine.Catalog, name string) error {
	if err := cat.DropTable(ctx, name); err != nil {
		return fmt.Errorf("dropping %s: %w", name, err)
	}
	return cat.DeleteMeta(ctx, name)
}

// Cleaned is what Cleanup did.
type Cleaned struct {
	// Dropped are the tables dropped, in creation order.
	Dropped []string
}

// NotDropped is a table Cleanup left in place and why.
type NotDropped struct {
	Table string
	// Unrecorded is set for a table MetaTable has no record of.
	Unrecorded bool
	// Unconfirmed is set for a recorded table dbarena cannot tell from a
	// copy of the one it created (its record, an older dbarena's, holds
	// no identity a copy cannot carry); its record is kept.
	Unconfirmed bool
	Reason      string
}

// NotDroppedError lists the tables Cleanup left because they are not the
// ones dbarena created: unrecorded, recorded but replaced since (their
// identity or their columns differ), or recorded without an identity
// that tells them from a copy. It wraps ErrNotOurs.
type NotDroppedError struct {
	Tables []NotDropped
}

func (e *NotDroppedError) Error() string {
	msgs := make([]string, len(e.Tables))
	for i, t := range e.Tables {
		switch {
		case t.Unrecorded:
			msgs[i] = fmt.Sprintf("not dropped: %s: %v (%s)", t.Table, ErrNotOurs, t.Reason)
		case t.Unconfirmed:
			msgs[i] = fmt.Sprintf("not dropped: %s: dbarena cannot tell it from a copy of the table it created (%s); drop it yourself if it is dbarena's", t.Table, t.Reason)
		default:
			msgs[i] = fmt.Sprintf("not dropped: %s is not the one dbarena created (%s)", t.Table, t.Reason)
		}
	}
	return strings.Join(msgs, "; ")
}

func (e *NotDroppedError) Unwrap() error { return ErrNotOurs }

// Cleanup removes a workload's server-side code (Spec.Uninstall) and drops the
// tables of w that dbarena created, in reverse creation order. A table is
// dropped only when MetaTable records it and it is still the table
// dbarena created: its identity (engine.Catalog.Identity) is the recorded
// one, whatever its columns (a table of an older declaration, which runs
// refuse with ErrShape, is dbarena's too). Every table is judged before
// any is dropped. Every other table of those names is left alone and
// reported in a *NotDroppedError: the record of a replaced one is
// forgotten, that of one whose record holds no identity a copy cannot
// carry (an older dbarena's) kept. While another prepare of the tables
// runs, Cleanup drops nothing and returns an error wrapping
// ErrBeingPrepared.
func Cleanup(ctx context.Context, eng engine.Engine, w workload.Workload) (Cleaned, error) {
	var out Cleaned
	d := eng.Dialect()
	w, err := workload.ForFamily(w, d)
	if err != nil {
		return out, err
	}
	c, err := eng.Connect(ctx)
	if err != nil {
		return out, err
	}
	defer c.Close()
	cat := c.Catalog()
	tables := tablesOf(w, d)

	// Judge every table first: dropping one may change what the
	// catalogue says of another (SQLite's auto_vacuum moves root pages).
	type action int
	const (
		keep   action = iota // not ours: left alone
		drop                 // ours: dropped
		forget               // its record is of a table that is gone
	)
	acts := make([]action, len(tables))
	var refused []NotDropped
	// Reverse creation order: tables referenced by foreign keys go last.
	for i := len(tables) - 1; i >= 0; i-- {
		t := tables[i]
		st, err := inspect(ctx, cat, t.Name)
		if err != nil {
			return out, err
		}
		// A prepare on another host cannot be looked at: what it left is
		// dropped, as its message says.
		if st.meta == stateLoading {
			if by, here := stillPreparing(st.rec); here {
				return out, &TableError{Table: t.Name, Err: fmt.Errorf("%w %s", ErrBeingPrepared, by), Hint: "nothing was dropped; run cleanup once it has ended"}
			}
		}
		switch {
		case st.meta != "" && st.exists:
			j, err := judge(ctx, cat, t, st)
			if err != nil {
				return out, err
			}
			switch {
			case j.replaced != "" || (j.shape != "" && j.unconfirmed != ""):
				refused = append(refused, NotDropped{Table: t.Name, Reason: j.why()})
				acts[i] = forget // the record is of a table that is gone
			case j.unconfirmed != "":
				refused = append(refused, NotDropped{Table: t.Name, Unconfirmed: true, Reason: j.unconfirmed})
			default:
				// Its identity is the recorded one: dbarena's own table,
				// in the declared shape or another (an older dbarena's
				// declaration, a column added since).
				acts[i] = drop
			}
		case st.meta != "":
			acts[i] = forget // recorded, but gone already
		case st.exists:
			refused = append(refused, NotDropped{Table: t.Name, Unrecorded: true, Reason: MetaTable + " has no record of it; dbarena will not drop it"})
		}
	}
	if un := w.Define().Uninstall; un != nil {
		if err := un(ctx, c); err != nil {
			return out, fmt.Errorf("removing server-side code: %w", err)
		}
	}
	for i := len(tables) - 1; i >= 0; i-- {
		switch acts[i] {
		case drop:
			if err := dropOurs(ctx, cat, tables[i].Name); err != nil {
				return out, err
			}
			out.Dropped = append(out.Dropped, tables[i].Name)
		case forget:
			if err := cat.DeleteMeta(ctx, tables[i].Name); err != nil {
				return out, err
			}
		}
	}
	slices.Reverse(out.Dropped) // reported in creation order
	slices.Reverse(refused)
	// Forget the metadata table itself once it records nothing.
	_ = cat.DropMetaIfEmpty(ctx)
	if len(refused) > 0 {
		return out, &NotDroppedError{Tables: refused}
	}
	return out, nil
}

// Check verifies that w's tables are prepared and runs w's consistency
// checks (Spec.Check), if it has any.
func Check(ctx context.Context, eng engine.Engine, w workload.Workload) ([]workload.Problem, error) {
	d := eng.Dialect()
	w, err := workload.ForFamily(w, d)
	if err != nil {
		return nil, err
	}
	c, err := eng.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := VerifyPrepared(ctx, c, d, w); err != nil {
		return nil, err
	}
	check := w.Define().Check
	if check == nil {
		return nil, nil
	}
	return check(ctx, c)
}

// prepareShard is a shard's part of a sharded prepare other than shard
// 0's: once shard 0 has created the tables it loads its batches, and
// waits for shard 0 to finish the tables. It creates and drops nothing:
// shard 0 rolls back the whole prepare when a shard fails.
func prepareShard(ctx context.Context, eng engine.Engine, cat engine.Catalog, w workload.Workload, tables []workload.Table, cfg PrepareConfig, start time.Time, config string) (PrepareStats, error) {
	var stats PrepareStats
	sp := cfg.Shard
	if _, err := sp.Arrive(ctx, cat, "prepare created", config); err != nil {
		return stats, err
	}
	ld, err := load(ctx, eng, tables, w.Define().BatchUnit, cfg)
	stats.Rows, stats.Times = ld.rows, ld.times
	if err != nil {
		return stats, err
	}
	stats.Load = cfg.Now().Sub(start)
	if err := tellRows(ctx, cat, sp, ld.tableRows); err != nil {
		return stats, err
	}
	if _, err := sp.Arrive(ctx, cat, "prepare loaded", config); err != nil {
		return stats, err
	}
	if _, err := sp.Arrive(ctx, cat, "prepare ready", config); err != nil {
		return stats, err
	}
	stats.Tables = len(tables)
	stats.Duration = cfg.Now().Sub(start)
	stats.Indexes = stats.Duration - stats.Load
	stats.SizeErr = errShardSizes
	return stats, nil
}

// errShardSizes is why a shard other than 0 of a sharded prepare tells
// no sizes.
var errShardSizes = errors.New("shard 0 reports them, with every shard's rows")

// rowsPhase is where each shard of a sharded prepare tells the rows it
// loaded into each table, for shard 0's summary.
const rowsPhase = "prepare rows"

func tellRows(ctx context.Context, cat engine.Catalog, sp *shard.Spec, rows []int64) error {
	b, _ := json.Marshal(rows)
	return sp.Tell(ctx, cat, rowsPhase, string(b))
}

// shardRows adds up the rows every shard told it loaded into each of n
// tables.
func shardRows(ctx context.Context, cat engine.Catalog, sp *shard.Spec, n int) ([]int64, error) {
	sum := make([]int64, n)
	for i := range sp.Count {
		body, ok, err := sp.Told(ctx, cat, rowsPhase, i)
		if err != nil {
			return nil, err
		}
		var rows []int64
		if !ok || json.Unmarshal([]byte(body), &rows) != nil || len(rows) != n {
			return nil, fmt.Errorf("shard %d did not tell the rows it loaded", i)
		}
		for t, r := range rows {
			sum[t] += r
		}
	}
	return sum, nil
}
