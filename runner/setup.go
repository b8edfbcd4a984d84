package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// MetaTable records every table dbarena created, so that cleanup drops
// only those and run can tell a prepared target from a foreign one.
const MetaTable = "dbarena_tables"

// Table states in MetaTable.
const (
	stateLoading = "loading"
	stateReady   = "ready"
)

// Sentinel errors of prepare, run and cleanup.
var (
	ErrAlreadyPrepared = errors.New("already prepared")
	ErrNotPrepared     = errors.New("not prepared")
	ErrNotOurs         = errors.New("not created by dbarena")
	ErrShape           = errors.New("table has another shape")
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
}

// LoadProgress is a snapshot of a running prepare.
type LoadProgress struct {
	Rows         int64
	Batches      int
	TotalBatches int
	// Unit names what batches with the same index in every table form
	// ("warehouses") for a workload.BatchUnit; UnitsDone of Units are in.
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
}

type tableState struct {
	exists bool
	meta   string // "" when MetaTable has no row for it
	owner  string // workload that created it
}

func ensureMeta(ctx context.Context, c engine.Conn, d engine.Dialect) error {
	v := d.ColumnType(engine.TypeVarchar, 128, 0)
	return c.Exec(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (table_name %s NOT NULL PRIMARY KEY, workload %s NOT NULL, state %s NOT NULL, created_at %s NOT NULL)",
		MetaTable, v, v, d.ColumnType(engine.TypeVarchar, 16, 0), d.ColumnType(engine.TypeVarchar, 40, 0)))
}

func tableExists(ctx context.Context, c engine.Conn, d engine.Dialect, name string) (bool, error) {
	var n int64
	if err := c.QueryRow(ctx, d.TableExistsSQL(), []any{name}, &n); err != nil {
		if errors.Is(err, engine.ErrNoRows) {
			return false, nil
		}
		return false, fmt.Errorf("looking up table %s: %w", name, err)
	}
	return n > 0, nil
}

func inspect(ctx context.Context, c engine.Conn, d engine.Dialect, name string) (tableState, error) {
	var st tableState
	var err error
	if st.exists, err = tableExists(ctx, c, d, name); err != nil {
		return st, err
	}
	metaExists, err := tableExists(ctx, c, d, MetaTable)
	if err != nil || !metaExists {
		return st, err
	}
	err = c.QueryRow(ctx, "SELECT state, workload FROM "+MetaTable+" WHERE table_name = ?", []any{name}, &st.meta, &st.owner)
	if errors.Is(err, engine.ErrNoRows) {
		err = nil
	}
	return st, err
}

func columns(ctx context.Context, c engine.Conn, d engine.Dialect, table string) ([]string, error) {
	var cols []string
	err := c.QueryRows(ctx, d.ColumnsSQL(), []any{table}, func(row []any) error {
		cols = append(cols, fmt.Sprint(row[0]))
		return nil
	})
	return cols, err
}

func checkShape(ctx context.Context, c engine.Conn, d engine.Dialect, t workload.Table) error {
	got, err := columns(ctx, c, d, t.Name)
	if err != nil {
		return err
	}
	if !sameColumns(got, t.Columns) {
		return &TableError{Table: t.Name, Err: ErrShape, Hint: fmt.Sprintf("columns are (%s), want (%s)", strings.Join(got, ", "), strings.Join(t.Columns, ", "))}
	}
	return nil
}

// sameColumns reports whether the table has exactly the wanted columns, in
// order (names compared case-insensitively).
func sameColumns(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !strings.EqualFold(got[i], want[i]) {
			return false
		}
	}
	return true
}

// VerifyPrepared checks that every table of w exists, was loaded to the
// end by dbarena and has the expected columns.
func VerifyPrepared(ctx context.Context, c engine.Conn, d engine.Dialect, w workload.Workload) error {
	for _, t := range w.Tables(d) {
		st, err := inspect(ctx, c, d, t.Name)
		if err != nil {
			return err
		}
		switch {
		case !st.exists:
			return &TableError{Table: t.Name, Err: ErrNotPrepared, Hint: "it does not exist; run dbarena prepare " + w.Meta().Name + " with the same options"}
		case st.meta == "":
			return &TableError{Table: t.Name, Err: ErrNotOurs, Hint: MetaTable + " has no record of it; prepare into an empty database"}
		case st.meta != stateReady:
			return &TableError{Table: t.Name, Err: ErrNotPrepared, Hint: "its load did not finish; run dbarena cleanup, then prepare"}
		}
		if err := checkShape(ctx, c, d, t); err != nil {
			return err
		}
	}
	return nil
}

// Prepare creates w's tables and loads their initial data in parallel,
// running each table's AfterLoad statements as soon as its rows are in and
// a workload.LoadFinisher's FinishLoad once all are.
// On failure or cancellation it drops the tables it created, so nothing
// half-loaded is left behind.
func Prepare(ctx context.Context, eng engine.Engine, w workload.Workload, cfg PrepareConfig) (PrepareStats, error) {
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
	tables := w.Tables(d)
	start := cfg.Now()

	c, err := eng.Connect(ctx)
	if err != nil {
		return stats, err
	}
	defer c.Close()
	if err := ensureMeta(ctx, c, d); err != nil {
		return stats, fmt.Errorf("creating %s: %w", MetaTable, err)
	}

	// Look before touching anything: every problem is reported before a
	// single table is created.
	var redo []string
	for _, t := range tables {
		st, err := inspect(ctx, c, d, t.Name)
		if err != nil {
			return stats, err
		}
		switch {
		case st.exists && st.meta == "":
			return stats, &TableError{Table: t.Name, Err: ErrNotOurs, Hint: "it exists but " + MetaTable + " has no record of it; dbarena will not touch it"}
		case st.meta == stateReady && st.exists:
			return stats, &TableError{Table: t.Name, Err: ErrAlreadyPrepared, Hint: "run dbarena cleanup " + w.Meta().Name + " first to load it again"}
		case st.meta != "":
			redo = append(redo, t.Name) // an earlier load that did not finish
		}
	}
	for _, name := range redo {
		if err := dropOurs(ctx, c, d, name); err != nil {
			return stats, err
		}
	}

	var created []string
	fail := func(err error) (PrepareStats, error) {
		// The caller's context may be what failed: clean up on a fresh one.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		cc, cerr := eng.Connect(cctx)
		if cerr == nil {
			// Reverse order: tables referenced by foreign keys go last.
			for i := len(created) - 1; i >= 0; i-- {
				_ = dropOurs(cctx, cc, d, created[i])
			}
			cc.Close()
		}
		return stats, err
	}

	ins, err := c.Prepare(ctx, "INSERT INTO "+MetaTable+" (table_name, workload, state, created_at) VALUES (?, ?, ?, ?)")
	if err != nil {
		return stats, err
	}
	for _, t := range tables {
		if _, err := ins.Exec(ctx, t.Name, w.Meta().Name, stateLoading, cfg.Now().UTC().Format(time.RFC3339)); err != nil {
			return fail(fmt.Errorf("recording table %s: %w", t.Name, err))
		}
		created = append(created, t.Name)
		if err := c.Exec(ctx, t.Create); err != nil {
			return fail(fmt.Errorf("creating table %s: %w", t.Name, err))
		}
	}

	unit := ""
	if u, ok := w.(workload.BatchUnit); ok {
		unit = u.BatchUnit()
	}
	rows, lastBatch, err := load(ctx, eng, tables, unit, cfg)
	stats.Rows = rows
	if err != nil {
		return fail(err)
	}
	if f, ok := w.(workload.LoadFinisher); ok {
		if err := f.FinishLoad(ctx, c); err != nil {
			return fail(err)
		}
	}
	stats.Load = lastBatch.Sub(start)
	stats.Indexes = cfg.Now().Sub(lastBatch)

	ready, err := c.Prepare(ctx, "UPDATE "+MetaTable+" SET state = ? WHERE table_name = ?")
	if err != nil {
		return fail(err)
	}
	for _, t := range tables {
		if _, err := ready.Exec(ctx, stateReady, t.Name); err != nil {
			return fail(fmt.Errorf("recording table %s: %w", t.Name, err))
		}
	}
	stats.Tables = len(tables)
	stats.Duration = cfg.Now().Sub(start)
	return stats, nil
}

type batchJob struct {
	table int // index into the tables
	batch int
}

// load runs every (table, batch) through LoadThreads loaders, each with its
// own connection. The loader that writes a table's last batch runs the
// table's AfterLoad statements at once, so index builds overlap the loading
// of the other tables. It returns the rows written and the instant the last
// batch was in.
func load(ctx context.Context, eng engine.Engine, tables []workload.Table, unit string, cfg PrepareConfig) (int64, time.Time, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan batchJob)
	total, units := 0, 0
	remaining := make([]atomic.Int64, len(tables))
	for i, t := range tables {
		total += t.Batches
		units = max(units, t.Batches)
		remaining[i].Store(int64(t.Batches))
	}
	// unitLeft[b] counts the tables whose batch b is not in yet.
	unitLeft := make([]atomic.Int64, units)
	for _, t := range tables {
		for b := 0; b < t.Batches; b++ {
			unitLeft[b].Add(1)
		}
	}
	var rows, batches, unitsDone atomic.Int64
	var lastBatch atomic.Int64 // unix nanoseconds
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
			for j := range jobs {
				t := &tables[j.table]
				n, err := c.BulkLoad(ctx, t.Name, t.Columns, t.Rows(j.batch))
				if err != nil {
					errs[i] = fmt.Errorf("loading %s batch %d: %w", t.Name, j.batch, err)
					cancel()
					return
				}
				rows.Add(n)
				batches.Add(1)
				if unitLeft[j.batch].Add(-1) == 0 {
					unitsDone.Add(1)
				}
				if remaining[j.table].Add(-1) == 0 {
					lastBatch.Store(cfg.Now().UnixNano())
					if err := afterLoad(ctx, c, eng.Dialect(), t); err != nil {
						errs[i] = err
						cancel()
						return
					}
				}
			}
		}()
	}
	// Table by table, so each table's indexes build while later tables
	// load; unit by unit for a workload.BatchUnit, so units (warehouses)
	// complete one after another.
	order := make([]batchJob, 0, total)
	if unit == "" {
		for ti := range tables {
			for b := 0; b < tables[ti].Batches; b++ {
				order = append(order, batchJob{ti, b})
			}
		}
	} else {
		for b := 0; b < units; b++ {
			for ti := range tables {
				if b < tables[ti].Batches {
					order = append(order, batchJob{ti, b})
				}
			}
		}
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
	if err := rootErr(errs); err != nil {
		return rows.Load(), time.Time{}, err
	}
	if err := ctx.Err(); err != nil {
		return rows.Load(), time.Time{}, err
	}
	// Tables without initial data still get their AfterLoad.
	var empty []*workload.Table
	for i := range tables {
		if tables[i].Batches == 0 && len(tables[i].AfterLoad) > 0 {
			empty = append(empty, &tables[i])
		}
	}
	if len(empty) > 0 {
		c, err := eng.Connect(ctx)
		if err != nil {
			return rows.Load(), time.Time{}, err
		}
		defer c.Close()
		for _, t := range empty {
			if err := afterLoad(ctx, c, eng.Dialect(), t); err != nil {
				return rows.Load(), time.Time{}, err
			}
		}
	}
	report(true)
	last := start
	if ns := lastBatch.Load(); ns != 0 {
		last = time.Unix(0, ns)
	}
	return rows.Load(), last, nil
}

// afterLoad runs one table's AfterLoad statements (indexes, sequence
// resets). A statement that meets a lock held by a loader (SQLite's single
// writer) waits for it: it is tried again until it runs or ctx ends.
func afterLoad(ctx context.Context, c engine.Conn, d engine.Dialect, t *workload.Table) error {
	for _, stmt := range t.AfterLoad {
		for {
			err := c.Exec(ctx, stmt)
			if err == nil {
				break
			}
			if d.Classify(err) != engine.ClassSerialization || ctx.Err() != nil {
				return fmt.Errorf("table %s: %s: %w", t.Name, stmt, err)
			}
		}
	}
	return nil
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

// dropOurs drops a table recorded in MetaTable and forgets it.
func dropOurs(ctx context.Context, c engine.Conn, d engine.Dialect, name string) error {
	if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+d.QuoteIdent(name)); err != nil {
		return fmt.Errorf("dropping %s: %w", name, err)
	}
	del, err := c.Prepare(ctx, "DELETE FROM "+MetaTable+" WHERE table_name = ?")
	if err != nil {
		return err
	}
	_, err = del.Exec(ctx, name)
	return err
}

// Cleanup removes a workload.Installer's server-side code and drops the
// tables of w that dbarena created, in reverse creation order. Tables of the same
// names that dbarena did not create are left alone and reported with
// ErrNotOurs. It returns the names it dropped, in creation order.
func Cleanup(ctx context.Context, eng engine.Engine, w workload.Workload) ([]string, error) {
	d := eng.Dialect()
	c, err := eng.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if in, ok := w.(workload.Installer); ok {
		if err := in.Uninstall(ctx, c); err != nil {
			return nil, fmt.Errorf("removing server-side code: %w", err)
		}
	}
	var dropped []string
	var refused []string
	tables := w.Tables(d)
	// Reverse creation order: tables referenced by foreign keys go last.
	for i := len(tables) - 1; i >= 0; i-- {
		t := tables[i]
		st, err := inspect(ctx, c, d, t.Name)
		if err != nil {
			return dropped, err
		}
		switch {
		case st.meta != "":
			if err := dropOurs(ctx, c, d, t.Name); err != nil {
				return dropped, err
			}
			dropped = append(dropped, t.Name)
		case st.exists:
			refused = append(refused, t.Name)
		}
	}
	slices.Reverse(dropped) // reported in creation order
	// Forget the metadata table itself once it records nothing.
	if ok, err := tableExists(ctx, c, d, MetaTable); err == nil && ok {
		var n int64
		if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM "+MetaTable, nil, &n); err == nil && n == 0 {
			_ = c.Exec(ctx, "DROP TABLE "+MetaTable)
		}
	}
	if len(refused) > 0 {
		return dropped, &TableError{Table: strings.Join(refused, ", "), Err: ErrNotOurs, Hint: MetaTable + " has no record of it; dbarena will not drop it"}
	}
	return dropped, nil
}

// Check verifies that w's tables are prepared and, when w is a
// workload.Checker, runs its consistency checks.
func Check(ctx context.Context, eng engine.Engine, w workload.Workload) ([]workload.Problem, error) {
	d := eng.Dialect()
	c, err := eng.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := VerifyPrepared(ctx, c, d, w); err != nil {
		return nil, err
	}
	ch, ok := w.(workload.Checker)
	if !ok {
		return nil, nil
	}
	return ch.Check(ctx, c)
}
