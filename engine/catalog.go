package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/workload/schema"
)

// MetaTable records every table (or collection) dbarena created, so that
// cleanup drops only those and run can tell a prepared target from a
// foreign one.
const MetaTable = "dbarena_tables"

// SchemaRenderer is implemented by the dialects of SQL engines: the DDL of
// a declared table, in three steps. SQLCatalog runs CreateTableSQL in
// CreateTable, AfterLoadSQL in FinishTable and ForeignKeySQL in
// AddForeignKeys.
type SchemaRenderer interface {
	// CreateTableSQL creates t empty: its columns and, unless the
	// dialect builds it after the load (DeferredPrimaryKey), its primary
	// key.
	CreateTableSQL(t *schema.Table) []string
	// AfterLoadSQL builds what t needs once its rows are in: a deferred
	// primary key, the secondary indexes, sequence resets of Serial
	// columns.
	AfterLoadSQL(t *schema.Table) []string
	// ForeignKeySQL adds t's foreign keys, once every table is loaded.
	// A dialect that cannot add them to a loaded table returns an error
	// wrapping ErrNoForeignKeys when t has any.
	ForeignKeySQL(t *schema.Table) ([]string, error)
}

// ErrNoForeignKeys is returned by SchemaRenderer.ForeignKeySQL of
// dialects that cannot add foreign keys to a loaded table (SQLite).
var ErrNoForeignKeys = errors.New("cannot add foreign keys to loaded tables")

// ErrNoRenderer is returned by SQLCatalog on a dialect that cannot render
// declared tables.
var ErrNoRenderer = errors.New("dialect cannot render declared tables")

func renderer(d SQLDialect) (SchemaRenderer, error) {
	r, ok := d.(SchemaRenderer)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoRenderer, d.Name())
	}
	return r, nil
}

// MetaRecord is one table's row in MetaTable.
type MetaRecord struct {
	Table    string
	Workload string // the workload that created it
	State    string // "loading" or "ready"
	Created  time.Time
}

// Catalog is what setup (prepare, run's check that a target is prepared,
// check, cleanup) needs from a connection: tables, their initial data and
// dbarena's own records of them. Every engine's Conn offers one; SQL
// engines share SQLCatalog.
type Catalog interface {
	// TableExists reports whether a table (collection) named name exists.
	TableExists(ctx context.Context, name string) (bool, error)
	// Columns returns the table's columns in order (SQL: the catalogue;
	// documents: the fields recorded when the collection was created).
	Columns(ctx context.Context, name string) ([]string, error)
	// CreateTable creates the declared table t, empty: SQL engines
	// render it through their dialect's SchemaRenderer, MongoDB creates
	// a collection and records its columns.
	CreateTable(ctx context.Context, t *schema.Table) error
	// BulkLoad inserts every row of src into t (values in the order of
	// t's columns) by the engine's fastest means (COPY, multi-row INSERT,
	// one big transaction, unordered bulk writes) and returns the rows
	// written. A JSON column's values are json.RawMessage (or strings
	// holding JSON).
	BulkLoad(ctx context.Context, t *schema.Table, src RowSource) (int64, error)
	// FinishTable builds what t needs after its rows are in: deferred
	// primary key, secondary indexes, sequence resets (MongoDB: its
	// validator and indexes).
	FinishTable(ctx context.Context, t *schema.Table) error
	// AddForeignKeys adds t's foreign keys; setup calls it once every
	// table is loaded and finished. Engines without foreign keys
	// (MongoDB) do nothing.
	AddForeignKeys(ctx context.Context, t *schema.Table) error
	// DropTable drops a table if it exists.
	DropTable(ctx context.Context, name string) error

	// Meta reads name's record in MetaTable; ok is false when there is
	// none (or no MetaTable at all).
	Meta(ctx context.Context, name string) (rec MetaRecord, ok bool, err error)
	// SetMeta creates MetaTable when needed and writes rec, replacing the
	// record of the same table.
	SetMeta(ctx context.Context, rec MetaRecord) error
	// DeleteMeta forgets name's record.
	DeleteMeta(ctx context.Context, name string) error
	// DropMetaIfEmpty drops MetaTable once it records nothing.
	DropMetaIfEmpty(ctx context.Context) error
}

// SQLCatalog is the Catalog of every SQL engine, built on its SQLConn and
// SQLDialect: MetaTable is an ordinary table.
type SQLCatalog struct {
	C SQLConn
}

var _ Catalog = SQLCatalog{}

// TableExists implements Catalog.
func (s SQLCatalog) TableExists(ctx context.Context, name string) (bool, error) {
	var n int64
	if err := s.C.QueryRow(ctx, s.C.Dialect().TableExistsSQL(), []any{name}, &n); err != nil {
		if errors.Is(err, ErrNoRows) {
			return false, nil
		}
		return false, fmt.Errorf("looking up table %s: %w", name, err)
	}
	return n > 0, nil
}

// Columns implements Catalog.
func (s SQLCatalog) Columns(ctx context.Context, name string) ([]string, error) {
	var cols []string
	err := s.C.QueryRows(ctx, s.C.Dialect().ColumnsSQL(), []any{name}, func(row []any) error {
		cols = append(cols, fmt.Sprint(row[0]))
		return nil
	})
	return cols, err
}

// CreateTable implements Catalog: it runs the rendered CREATE statements.
func (s SQLCatalog) CreateTable(ctx context.Context, t *schema.Table) error {
	r, err := renderer(s.C.Dialect())
	if err != nil {
		return err
	}
	return s.exec(ctx, r.CreateTableSQL(t))
}

// BulkLoad implements Catalog. The values of JSON columns are handed to
// the driver as strings.
func (s SQLCatalog) BulkLoad(ctx context.Context, t *schema.Table, src RowSource) (int64, error) {
	if t.HasType(schema.JSON) {
		var js []int
		for i, c := range t.Columns {
			if c.Type == schema.JSON {
				js = append(js, i)
			}
		}
		src = &jsonText{RowSource: src, cols: js}
	}
	return s.C.BulkLoad(ctx, t.Name, t.ColumnNames(), src)
}

// jsonText turns json.RawMessage and []byte values of the columns cols
// into strings, so that every driver sends them as text, never as binary
// data.
type jsonText struct {
	RowSource
	cols []int
	row  []any
}

func (j *jsonText) Values() ([]any, error) {
	vals, err := j.RowSource.Values()
	if err != nil {
		return nil, err
	}
	j.row = append(j.row[:0], vals...)
	for _, i := range j.cols {
		if i >= len(j.row) {
			break
		}
		switch v := j.row[i].(type) {
		case json.RawMessage:
			j.row[i] = string(v)
		case []byte:
			j.row[i] = string(v)
		}
	}
	return j.row, nil
}

// FinishTable implements Catalog: it runs the rendered after-load
// statements in order.
func (s SQLCatalog) FinishTable(ctx context.Context, t *schema.Table) error {
	r, err := renderer(s.C.Dialect())
	if err != nil {
		return err
	}
	return s.exec(ctx, r.AfterLoadSQL(t))
}

// AddForeignKeys implements Catalog.
func (s SQLCatalog) AddForeignKeys(ctx context.Context, t *schema.Table) error {
	if len(t.ForeignKeys) == 0 {
		return nil
	}
	r, err := renderer(s.C.Dialect())
	if err != nil {
		return err
	}
	stmts, err := r.ForeignKeySQL(t)
	if err != nil {
		return err
	}
	return s.exec(ctx, stmts)
}

func (s SQLCatalog) exec(ctx context.Context, stmts []string) error {
	for _, stmt := range stmts {
		if err := s.C.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// DropTable implements Catalog.
func (s SQLCatalog) DropTable(ctx context.Context, name string) error {
	return s.C.Exec(ctx, "DROP TABLE IF EXISTS "+s.C.Dialect().QuoteIdent(name))
}

// Meta implements Catalog.
func (s SQLCatalog) Meta(ctx context.Context, name string) (MetaRecord, bool, error) {
	rec := MetaRecord{Table: name}
	exists, err := s.TableExists(ctx, MetaTable)
	if err != nil || !exists {
		return rec, false, err
	}
	var created string
	err = s.C.QueryRow(ctx, "SELECT state, workload, created_at FROM "+MetaTable+" WHERE table_name = ?", []any{name}, &rec.State, &rec.Workload, &created)
	if errors.Is(err, ErrNoRows) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	rec.Created, _ = time.Parse(time.RFC3339, created)
	return rec, true, nil
}

// SetMeta implements Catalog.
func (s SQLCatalog) SetMeta(ctx context.Context, rec MetaRecord) error {
	d := s.C.Dialect()
	v := d.ColumnType(TypeVarchar, 128, 0)
	if err := s.C.Exec(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (table_name %s NOT NULL PRIMARY KEY, workload %s NOT NULL, state %s NOT NULL, created_at %s NOT NULL)",
		MetaTable, v, v, d.ColumnType(TypeVarchar, 16, 0), d.ColumnType(TypeVarchar, 40, 0))); err != nil {
		return fmt.Errorf("creating %s: %w", MetaTable, err)
	}
	created := rec.Created.UTC().Format(time.RFC3339)
	// Look first: MySQL reports an UPDATE that changes nothing as zero rows.
	_, found, err := s.Meta(ctx, rec.Table)
	if err != nil {
		return err
	}
	if found {
		up, err := s.C.Prepare(ctx, "UPDATE "+MetaTable+" SET workload = ?, state = ?, created_at = ? WHERE table_name = ?")
		if err != nil {
			return err
		}
		_, err = up.Exec(ctx, rec.Workload, rec.State, created, rec.Table)
		return err
	}
	ins, err := s.C.Prepare(ctx, "INSERT INTO "+MetaTable+" (table_name, workload, state, created_at) VALUES (?, ?, ?, ?)")
	if err != nil {
		return err
	}
	_, err = ins.Exec(ctx, rec.Table, rec.Workload, rec.State, created)
	return err
}

// DeleteMeta implements Catalog.
func (s SQLCatalog) DeleteMeta(ctx context.Context, name string) error {
	if ok, err := s.TableExists(ctx, MetaTable); err != nil || !ok {
		return err
	}
	del, err := s.C.Prepare(ctx, "DELETE FROM "+MetaTable+" WHERE table_name = ?")
	if err != nil {
		return err
	}
	_, err = del.Exec(ctx, name)
	return err
}

// DropMetaIfEmpty implements Catalog.
func (s SQLCatalog) DropMetaIfEmpty(ctx context.Context) error {
	if ok, err := s.TableExists(ctx, MetaTable); err != nil || !ok {
		return err
	}
	var n int64
	if err := s.C.QueryRow(ctx, "SELECT COUNT(*) FROM "+MetaTable, nil, &n); err != nil || n > 0 {
		return err
	}
	return s.C.Exec(ctx, "DROP TABLE "+MetaTable)
}
