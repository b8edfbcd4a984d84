package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// MetaTable records every table (or collection) dbarena created, so that
// cleanup drops only those and run can tell a prepared target from a
// foreign one.
const MetaTable = "dbarena_tables"

// TableDef is one table as setup hands it to a Catalog: what to create,
// which columns the initial data has, and what to build once the data is
// in. SQL engines use Create and AfterLoad; document engines use Columns
// (the documents' fields, in order) and Indexes.
type TableDef struct {
	Name string
	// Create is the CREATE TABLE statement (SQL engines).
	Create string
	// Columns are the columns (fields) of the initial data, in order.
	Columns []string
	// AfterLoad are SQL statements run once the rows are in: secondary
	// indexes, sequence resets.
	AfterLoad []string
	// Indexes are built once the documents are in (document engines).
	Indexes []Index
}

// Index is a secondary index of a document collection.
type Index struct {
	Name   string
	Keys   []string // fields, ascending
	Unique bool
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
	// CreateTable creates an empty table.
	CreateTable(ctx context.Context, t TableDef) error
	// BulkLoad inserts every row of src into table (columns in order) by
	// the engine's fastest means (COPY, multi-row INSERT, one big
	// transaction, unordered bulk writes) and returns the rows written.
	BulkLoad(ctx context.Context, table string, columns []string, src RowSource) (int64, error)
	// FinishTable builds what a table needs after its rows are in:
	// AfterLoad statements, indexes.
	FinishTable(ctx context.Context, t TableDef) error
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

// CreateTable implements Catalog: it runs t.Create.
func (s SQLCatalog) CreateTable(ctx context.Context, t TableDef) error {
	return s.C.Exec(ctx, t.Create)
}

// BulkLoad implements Catalog.
func (s SQLCatalog) BulkLoad(ctx context.Context, table string, columns []string, src RowSource) (int64, error) {
	return s.C.BulkLoad(ctx, table, columns, src)
}

// FinishTable implements Catalog: it runs t.AfterLoad in order.
func (s SQLCatalog) FinishTable(ctx context.Context, t TableDef) error {
	for _, stmt := range t.AfterLoad {
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
