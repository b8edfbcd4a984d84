package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/schema"
)

// MetaTable records every table (or collection) dbarena created, so that
// cleanup drops only those and run can tell a prepared target from a
// foreign one.
const MetaTable = "dbarena_tables"

// The states of a table in MetaTable.
const (
	// StateLoading is a table being created and loaded (or one whose
	// prepare ended before it was done).
	StateLoading = "loading"
	// StateReady is a table prepared to the end.
	StateReady = "ready"
)

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
	State    string // StateLoading or StateReady
	Created  time.Time
	// Identity is what Catalog.Identity said of the table once dbarena
	// had created it (StateLoading) and once it was prepared
	// (StateReady); "" in records of older versions, which kept none.
	Identity string
	// Preparer is the process that prepares the table while it is
	// StateLoading ("PID@host/token", see runner), "" when ready and in
	// records of older versions.
	Preparer string
	// Options are the workload's options that define the data, with the
	// values it was prepared with (workload.DataOptionValues); nil in
	// records of older versions.
	Options map[string]string
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
	// Identity is what tells the table named name now from any other
	// table that had or will have that name, a copy of it included: the
	// engine's own object id (PostgreSQL's oid, MongoDB's collection
	// UUID), or the marker CreateTable left in the table's definition
	// (MySQL's table comment, SQLite's CREATE TABLE text) together with
	// what the catalogue keeps of the table itself and a copy gets anew
	// (MySQL's creation time and InnoDB table id, SQLite's root page).
	// See CompareIdentity for its form. It is "" when the table does not
	// exist or the engine can tell nothing.
	Identity(ctx context.Context, name string) (string, error)
	// MatchShape compares the table named t.Name with the declaration:
	// columns by name and type, in order (MongoDB, whose collections
	// declare no columns: the fields of one of its documents). It
	// returns "" when they match, else what differs.
	MatchShape(ctx context.Context, t *schema.Table) (string, error)

	// Meta reads name's record in MetaTable; ok is false when there is
	// none (or no MetaTable at all).
	Meta(ctx context.Context, name string) (rec MetaRecord, ok bool, err error)
	// SetMeta creates MetaTable when needed and writes rec, replacing the
	// record of the same table.
	SetMeta(ctx context.Context, rec MetaRecord) error
	// AddMeta creates MetaTable when needed and writes rec unless there
	// is a record of the same table already, in one step no other writer
	// can come between: added is false then, and nothing is written.
	AddMeta(ctx context.Context, rec MetaRecord) (added bool, err error)
	// DeleteMeta forgets name's record.
	DeleteMeta(ctx context.Context, name string) error
	// DropMetaIfEmpty drops MetaTable once it records nothing.
	DropMetaIfEmpty(ctx context.Context) error

	// The records of sharded runs (ShardTable, ResultTable): see
	// ShardRecord. AddShardRecord creates table when needed and writes
	// rec unless a record of the same run, phase and shard is there, in
	// one step no other writer can come between: added is false then,
	// and nothing is written.
	AddShardRecord(ctx context.Context, table string, rec ShardRecord) (added bool, err error)
	// PutShardRecord creates table when needed and writes rec, replacing
	// the record of the same run, phase and shard.
	PutShardRecord(ctx context.Context, table string, rec ShardRecord) error
	// ShardRecords returns run's records in table (every run's when run
	// is ""; of phase only, unless phase is ""), ordered by run, phase
	// and shard; none when table does not exist.
	ShardRecords(ctx context.Context, table, run, phase string) ([]ShardRecord, error)
	// DeleteShardRecords deletes run's records in table (every run's
	// when run is ""), drops table once it holds none, and returns how
	// many it deleted.
	DeleteShardRecords(ctx context.Context, table, run string) (int, error)
	// ServerTime reads the server's clock (an embedded engine's: the
	// host's).
	ServerTime(ctx context.Context) (time.Time, error)
}

// TableInspector is implemented by the dialects of SQL engines: how their
// catalogue identifies a table and reports its columns' types, so that
// setup can tell the table dbarena created from another of the same name.
type TableInspector interface {
	// MarkTableSQL returns stmts, CreateTableSQL's statements for t, so
	// that they leave marker (a token unique to this creation, see
	// NewMarker) where TableIdentitySQL finds it: MySQL's table comment,
	// a comment inside SQLite's CREATE TABLE text. A dialect whose
	// catalogue identifies tables itself (PostgreSQL's oid) returns stmts
	// unchanged.
	MarkTableSQL(stmts []string, t *schema.Table, marker string) []string
	// TableIdentitySQL is a query with one '?' argument (a table name)
	// that returns one row when the table exists in the connection's
	// current schema/database, and the names of its columns: a column
	// named MarkerColumn holds text with the marker in it (only the
	// marker counts), one named "" the table's object id (PostgreSQL's
	// oid), any other what the catalogue keeps of the table itself,
	// which a copy of it gets anew (SQLite's rootpage). SQLCatalog's
	// Identity makes an identity of the row (see CompareIdentity).
	TableIdentitySQL() (query string, columns []string)
	// ColumnTypesSQL is a query with one '?' argument (a table name) that
	// returns the table's columns as (name, type) rows in ordinal order.
	ColumnTypesSQL() string
	// NormalType is a type as ColumnTypesSQL reports it, in the form
	// DeclaredType gives.
	NormalType(reported string) string
	// DeclaredType is the type ColumnTypesSQL reports for a column
	// declared as c, in NormalType's form.
	DeclaredType(c schema.Column) string
}

// markerPrefix starts every marker NewMarker makes.
const markerPrefix = "dbarena-id:"

// NewMarker is a token unique to one table's creation, for dialects that
// keep it in the table's definition (TableInspector.MarkTableSQL).
func NewMarker() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return markerPrefix + hex.EncodeToString(b[:])
}

// MarkerColumn names the column of TableInspector.TableIdentitySQL that
// holds the text with the marker in it.
const MarkerColumn = "marker"

// markerIn is the marker in s, or "" when it holds none.
func markerIn(s string) string {
	i := strings.Index(s, markerPrefix)
	if i < 0 {
		return ""
	}
	j := i + len(markerPrefix)
	for j < len(s) && strings.IndexByte("0123456789abcdef", s[j]) >= 0 {
		j++
	}
	return s[i:j]
}

// MakeIdentity is the identity (see CompareIdentity) of a table whose
// definition holds marker ("" for none) and of which the catalogue says
// fields, in the order given: a field named "" is an object id, written
// bare; one whose value is "" is left out.
func MakeIdentity(marker string, fields ...IdentityField) string {
	var parts []string
	if marker != "" {
		parts = append(parts, marker)
	}
	for _, f := range fields {
		v := strings.Join(strings.Fields(f.Value), "_")
		switch {
		case v == "":
		case f.Name == "":
			parts = append(parts, v)
		default:
			parts = append(parts, f.Name+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// IdentityField is one thing a catalogue says of a table, for
// MakeIdentity.
type IdentityField struct{ Name, Value string }

// IdentityValue is the value of the field name in the identity id, ""
// when it has none.
func IdentityValue(id, name string) string {
	_, fields := identityParts(id)
	return fields[name]
}

// identityParts splits an identity into its marker and fields (an
// object id under the name "").
func identityParts(id string) (marker string, fields map[string]string) {
	fields = map[string]string{}
	for _, p := range strings.Fields(id) {
		switch name, v, ok := strings.Cut(p, "="); {
		case strings.HasPrefix(p, markerPrefix):
			marker = p
		case ok:
			fields[name] = v
		default:
			fields[""] = p
		}
	}
	return marker, fields
}

// IdentityVerdict is how a table's identity now compares with the one
// recorded when dbarena created it (CompareIdentity).
type IdentityVerdict struct {
	// Other says why it is another table; "" when it is not.
	Other string
	// Unconfirmed says why the table cannot be told from a copy of the
	// one dbarena created; "" when it can (or is Other).
	Unconfirmed string
}

// CompareIdentity compares the identity of a table now with the one
// recorded, both as Catalog.Identity gives them: space-separated parts,
// of which one may be the marker (NewMarker's token), the others
// "name=value" fields (a bare word is an object id, the field ""). A
// marker, or a field both have, that differs makes it another table, and
// so does a table that has none now. A record whose identity has no field
// (an older dbarena's, which kept only the marker: a copy made with the
// engine's own means, CREATE TABLE … LIKE, carries the marker too), or no
// field the table still has, leaves it unconfirmed.
//
// loading compares a table whose prepare did not finish: where the
// record has a marker, only the marker counts, since prepare's own index
// builds renew fields (MySQL's creation time) before it records the
// identity again.
func CompareIdentity(recorded, now string, loading bool) IdentityVerdict {
	if now == "" {
		return IdentityVerdict{Other: fmt.Sprintf("dbarena created it with identity %s, the table now has none", recorded)}
	}
	rm, rf := identityParts(recorded)
	nm, nf := identityParts(now)
	other := IdentityVerdict{Other: fmt.Sprintf("dbarena created it with identity %s, the table now has %s", recorded, now)}
	if rm != nm {
		return other
	}
	if loading && rm != "" {
		return IdentityVerdict{}
	}
	common := 0
	for name, v := range rf {
		if w, ok := nf[name]; ok {
			if v != w {
				return other
			}
			common++
		}
	}
	switch {
	case len(rf) == 0:
		return IdentityVerdict{Unconfirmed: fmt.Sprintf("%s holds only the marker %s of it, which an older dbarena left in its definition and a copy of the table carries too", MetaTable, recorded)}
	case common == 0:
		return IdentityVerdict{Unconfirmed: fmt.Sprintf("dbarena created it with identity %s, of which the catalogue now tells nothing (%s)", recorded, now)}
	}
	return IdentityVerdict{}
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
	stmts := r.CreateTableSQL(t)
	if in, ok := s.C.Dialect().(TableInspector); ok {
		stmts = in.MarkTableSQL(stmts, t, NewMarker())
	}
	return s.exec(ctx, stmts)
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

// Identity implements Catalog: the identity (MakeIdentity) of the row
// TableIdentitySQL returns. It is "" for a dialect that is no
// TableInspector.
func (s SQLCatalog) Identity(ctx context.Context, name string) (string, error) {
	in, ok := s.C.Dialect().(TableInspector)
	if !ok {
		return "", nil
	}
	q, cols := in.TableIdentitySQL()
	var row []string
	err := s.C.QueryRows(ctx, q, []any{name}, func(r []any) error {
		if row != nil {
			return nil
		}
		row = make([]string, len(r))
		for i, v := range r {
			if v != nil {
				row[i] = text(v)
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("identifying table %s: %w", name, err)
	}
	if row == nil {
		return "", nil
	}
	if len(row) != len(cols) {
		return "", fmt.Errorf("identifying table %s: %d columns, want %d (%s)", name, len(row), len(cols), strings.Join(cols, ", "))
	}
	var marker string
	var fields []IdentityField
	for i, c := range cols {
		v := row[i]
		if c == MarkerColumn {
			marker = markerIn(v)
		} else {
			fields = append(fields, IdentityField{Name: c, Value: v})
		}
	}
	return MakeIdentity(marker, fields...), nil
}

// MatchShape implements Catalog: names (case-insensitive) and, for a
// TableInspector dialect, types of the columns in order.
func (s SQLCatalog) MatchShape(ctx context.Context, t *schema.Table) (string, error) {
	in, ok := s.C.Dialect().(TableInspector)
	if !ok {
		got, err := s.Columns(ctx, t.Name)
		if err != nil {
			return "", err
		}
		return columnsDiffer(got, t.ColumnNames()), nil
	}
	var got []string
	err := s.C.QueryRows(ctx, in.ColumnTypesSQL(), []any{t.Name}, func(row []any) error {
		got = append(got, strings.ToLower(text(row[0]))+" "+in.NormalType(text(row[1])))
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("reading the columns of %s: %w", t.Name, err)
	}
	want := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		want[i] = c.Name + " " + in.DeclaredType(c)
	}
	return columnsDiffer(got, want), nil
}

// text is a catalogue value as a string (drivers return some as []byte).
func text(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}

// columnsDiffer is "" when got and want hold the same columns in order
// (compared case-insensitively), else "columns are (…), want (…)".
func columnsDiffer(got, want []string) string {
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = strings.EqualFold(got[i], want[i])
	}
	if same {
		return ""
	}
	return fmt.Sprintf("columns are (%s), want (%s)", strings.Join(got, ", "), strings.Join(want, ", "))
}

// metaColumns are the columns of MetaTable after the first four, which
// older versions of dbarena did not have: SetMeta adds them to a
// MetaTable they made.
var metaColumns = []struct{ name, typ string }{
	{"table_identity", "VARCHAR(128)"}, // the DDL types of every SQL engine
	{"data_options", "VARCHAR(4000)"},
	{"prepared_by", "VARCHAR(255)"},
}

// metaHas reports which of metaColumns MetaTable has.
func (s SQLCatalog) metaHas(ctx context.Context) ([]bool, error) {
	cols, err := s.Columns(ctx, MetaTable)
	if err != nil {
		return nil, fmt.Errorf("reading the columns of %s: %w", MetaTable, err)
	}
	has := make([]bool, len(metaColumns))
	for i, m := range metaColumns {
		for _, c := range cols {
			has[i] = has[i] || strings.EqualFold(c, m.name)
		}
	}
	return has, nil
}

// Meta implements Catalog. A record of an older version, whose MetaTable
// has no identity and options columns, comes back without them.
func (s SQLCatalog) Meta(ctx context.Context, name string) (MetaRecord, bool, error) {
	rec := MetaRecord{Table: name}
	exists, err := s.TableExists(ctx, MetaTable)
	if err != nil || !exists {
		return rec, false, err
	}
	has, err := s.metaHas(ctx)
	if err != nil {
		return rec, false, err
	}
	var created string
	q := "SELECT state, workload, created_at"
	dst := []any{&rec.State, &rec.Workload, &created}
	var extra [3]string
	for i, m := range metaColumns {
		if has[i] {
			q += ", COALESCE(" + m.name + ", '')"
			dst = append(dst, &extra[i])
		}
	}
	err = s.C.QueryRow(ctx, q+" FROM "+MetaTable+" WHERE table_name = ?", []any{name}, dst...)
	if errors.Is(err, ErrNoRows) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	rec.Created, _ = time.Parse(time.RFC3339, created)
	rec.Identity, rec.Preparer = extra[0], extra[2]
	if extra[1] != "" {
		if err := json.Unmarshal([]byte(extra[1]), &rec.Options); err != nil {
			return rec, true, fmt.Errorf("%s: the options of %s: %w", MetaTable, name, err)
		}
	}
	return rec, true, nil
}

// ensureMeta creates MetaTable when needed and gives one of an older
// version the columns it lacks.
func (s SQLCatalog) ensureMeta(ctx context.Context) error {
	d := s.C.Dialect()
	varchar := func(n int) string { return d.ColumnType(schema.Column{Type: schema.Varchar, Size: n}) }
	v := varchar(128)
	extraCols := ""
	for _, m := range metaColumns {
		extraCols += ", " + m.name + " " + m.typ
	}
	if err := s.C.Exec(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (table_name %s NOT NULL PRIMARY KEY, workload %s NOT NULL, state %s NOT NULL, created_at %s NOT NULL%s)",
		MetaTable, v, v, varchar(16), varchar(40), extraCols)); err != nil {
		return fmt.Errorf("creating %s: %w", MetaTable, err)
	}
	has, err := s.metaHas(ctx)
	if err != nil {
		return err
	}
	for i, m := range metaColumns {
		if !has[i] {
			if err := s.C.Exec(ctx, "ALTER TABLE "+MetaTable+" ADD "+m.name+" "+m.typ); err != nil {
				return fmt.Errorf("adding %s to %s: %w", m.name, MetaTable, err)
			}
		}
	}
	return nil
}

// metaRow is rec's values in MetaTable after table_name, in the order of
// metaInsert's columns.
func metaRow(rec MetaRecord) ([]any, error) {
	opts := ""
	if rec.Options != nil {
		b, err := json.Marshal(rec.Options)
		if err != nil {
			return nil, err
		}
		opts = string(b)
	}
	return []any{rec.Workload, rec.State, rec.Created.UTC().Format(time.RFC3339), rec.Identity, opts, rec.Preparer}, nil
}

// metaInsert inserts a record: table_name, then metaRow's values.
const metaInsert = "INSERT INTO " + MetaTable + " (table_name, workload, state, created_at, table_identity, data_options, prepared_by) VALUES (?, ?, ?, ?, ?, ?, ?)"

// SetMeta implements Catalog. It gives a MetaTable of an older version
// the columns it lacks.
func (s SQLCatalog) SetMeta(ctx context.Context, rec MetaRecord) error {
	if err := s.ensureMeta(ctx); err != nil {
		return err
	}
	row, err := metaRow(rec)
	if err != nil {
		return err
	}
	// Look first: MySQL reports an UPDATE that changes nothing as zero rows.
	_, found, err := s.Meta(ctx, rec.Table)
	if err != nil {
		return err
	}
	if found {
		up, err := s.C.Prepare(ctx, "UPDATE "+MetaTable+" SET workload = ?, state = ?, created_at = ?, table_identity = ?, data_options = ?, prepared_by = ? WHERE table_name = ?")
		if err != nil {
			return err
		}
		_, err = up.Exec(ctx, append(row, rec.Table)...)
		return err
	}
	ins, err := s.C.Prepare(ctx, metaInsert)
	if err != nil {
		return err
	}
	_, err = ins.Exec(ctx, append([]any{rec.Table}, row...)...)
	return err
}

// AddMeta implements Catalog: an INSERT, which the primary key on
// table_name refuses when another record of the table is there.
func (s SQLCatalog) AddMeta(ctx context.Context, rec MetaRecord) (bool, error) {
	if err := s.ensureMeta(ctx); err != nil {
		return false, err
	}
	row, err := metaRow(rec)
	if err != nil {
		return false, err
	}
	ins, err := s.C.Prepare(ctx, metaInsert)
	if err != nil {
		return false, err
	}
	if _, err = ins.Exec(ctx, append([]any{rec.Table}, row...)...); err == nil {
		return true, nil
	}
	if s.C.Dialect().Classify(err) == ClassUniqueViolation {
		return false, nil
	}
	if _, found, merr := s.Meta(ctx, rec.Table); merr == nil && found {
		return false, nil
	}
	return false, err
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

// TableSize is one table's (collection's) size on disk, in bytes, as its
// engine accounts for it. Data is the table's rows (PostgreSQL's heap
// with its TOAST table, InnoDB's clustered index, SQLite's table b-tree,
// WiredTiger's collection file), Indexes its indexes (the primary key's
// too where it is an index of its own: PostgreSQL, SQLite tables with a
// composite key, MongoDB's _id), Total the two together.
type TableSize struct {
	Table                string
	Data, Indexes, Total int64
}

// TableSizer is an optional ability of a Catalog: how much disk its
// tables take. Setup reads it after a prepare; a Catalog that lacks it
// (or returns ErrNoSizes) has nothing to say.
type TableSizer interface {
	// TableSizes returns the sizes of the tables named names, in that
	// order; a name that is not a table is an error naming it.
	TableSizes(ctx context.Context, names []string) ([]TableSize, error)
	// SizeNote says what the figures are where that is not plain (InnoDB's
	// come from its statistics and count whole pages), "" otherwise.
	SizeNote() string
}

// ErrNoSizes is returned by TableSizer.TableSizes when the engine cannot
// tell tables' sizes (SQLCatalog on a dialect that is no SizeInspector).
var ErrNoSizes = errors.New("the engine does not report table sizes")

// SizeInspector is implemented by the dialects of SQL engines whose
// catalogue knows how much disk a table takes; SQLCatalog's TableSizes
// runs what it returns.
type SizeInspector interface {
	// TableSizeSQL returns what reads the size of the table named name:
	// statements to run first (MySQL's ANALYZE TABLE, which refreshes
	// the figures InnoDB reports), then a query with one '?' argument
	// (the name) returning one row of three integers: the bytes of the
	// table's data, of its indexes, and of both. The query returns no
	// row when there is no such table.
	TableSizeSQL(name string) (before []string, query string)
	// SizeNote is TableSizer.SizeNote.
	SizeNote() string
}

var _ TableSizer = SQLCatalog{}

// TableSizes implements TableSizer through the dialect's SizeInspector,
// else returns ErrNoSizes.
func (s SQLCatalog) TableSizes(ctx context.Context, names []string) ([]TableSize, error) {
	in, ok := s.C.Dialect().(SizeInspector)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoSizes, s.C.Dialect().Name())
	}
	out := make([]TableSize, 0, len(names))
	for _, name := range names {
		before, q := in.TableSizeSQL(name)
		if err := s.exec(ctx, before); err != nil {
			return out, err
		}
		ts := TableSize{Table: name}
		err := s.C.QueryRow(ctx, q, []any{name}, &ts.Data, &ts.Indexes, &ts.Total)
		if errors.Is(err, ErrNoRows) {
			return out, fmt.Errorf("the size of table %s: no such table", name)
		}
		if err != nil {
			return out, fmt.Errorf("the size of table %s: %w", name, err)
		}
		out = append(out, ts)
	}
	return out, nil
}

// SizeNote implements TableSizer: the dialect's, if it has one.
func (s SQLCatalog) SizeNote() string {
	if in, ok := s.C.Dialect().(SizeInspector); ok {
		return in.SizeNote()
	}
	return ""
}
