// Package schema declares a workload's tables once, for every engine: typed
// columns (JSON documents too), primary keys, secondary indexes (unique,
// composite, covering, expression and JSON-path), foreign keys and named
// index sets. Each engine renders a Table its own way: DDL in its SQL
// dialect, or collections and indexes on MongoDB.
//
// The package is a leaf: it imports nothing of dbarena, so workloads and
// engines both depend on it and never on each other.
//
// Loading order is the engines' business, but every engine follows the
// same outline: CREATE the table with its columns (and, where the engine
// keeps rows in key order, its primary key), load the rows, then build the
// rest of the primary key, the secondary indexes and, once every table is
// loaded, the foreign keys.
package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Type is a column's portable type.
type Type int

// Column types. Sizes and scales are set on the Column.
const (
	// Int is a 32-bit signed integer.
	Int Type = iota + 1
	// BigInt is a 64-bit signed integer.
	BigInt
	// Serial is a 32-bit integer numbered by the database when a row is
	// inserted without it (SERIAL, AUTO_INCREMENT, SQLite's rowid). It is
	// meant for a one-column primary key; rows loaded with explicit
	// values move the counter past them.
	Serial
	// Decimal is an exact number with Size digits, Scale of them after
	// the point.
	Decimal
	// Float is a 64-bit floating-point number.
	Float
	// Char is a fixed-length string of Size characters.
	Char
	// Varchar is a string of at most Size characters.
	Varchar
	// Text is a string of any length.
	Text
	// Timestamp is a date and time without time zone (microseconds).
	Timestamp
	// Bool is true or false.
	Bool
	// Bytes is a byte string of any length.
	Bytes
	// JSON is a JSON document: jsonb on PostgreSQL, JSON on MySQL and
	// MariaDB, TEXT holding JSON on SQLite, a nested document on MongoDB.
	// Rows carry it as a json.RawMessage (or its text as a string).
	JSON
	// SmallInt is a 16-bit signed integer.
	SmallInt
	// Date is a calendar date without a time of day. Rows carry it as a
	// time.Time at midnight UTC.
	Date
)

var typeNames = [...]string{"", "int", "bigint", "serial", "decimal", "float", "char", "varchar", "text", "timestamp", "bool", "bytes", "json", "smallint", "date"}

// String names the type ("varchar").
func (t Type) String() string {
	if t > 0 && int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Column is one column of a table.
type Column struct {
	Name string
	Type Type
	// Size is the length of Char and Varchar, the precision of Decimal.
	Size int
	// Scale is the digits after the point of Decimal.
	Scale int
	// Null allows NULL; columns are NOT NULL unless it is set.
	Null bool
	// Default, when not nil, is the value of a row inserted without the
	// column: an int, int64, float64, string or bool.
	Default any
	// Document, on a JSON column holding objects, makes each row's object
	// the row itself in a document store: MongoDB stores the object's
	// fields at the top level of the row's document, beside the other
	// columns (the primary key as _id), and a key on a path inside it is
	// that path from the document's root. SQL engines store the column
	// as any JSON column. A table has at most one; it is not a key.
	Document bool
}

// Key is one part of an index's key: a column, or the value at Path
// inside a JSON column (an expression index).
type Key struct {
	Column string
	// Path, for a JSON column, names the value indexed: its object keys
	// from the document's root ({"a": {"b": 1}}: Path a, b).
	Path []string
	// As is the type the value at Path is indexed as: Text (the default),
	// BigInt, Float or Bool. Queries compare the value as this type.
	As Type
	// Desc orders the key descending.
	Desc bool
	// Size, on a text path key, is the longest value it holds, in
	// characters: engines that index a path through a column of their
	// own (MySQL and MariaDB's generated columns) declare that column
	// VARCHAR(Size), so that several keys fit one index. 0: 255.
	Size int
}

// PathName is the key's JSON path written with dots ("a.b"), "" for a
// column key.
func (k Key) PathName() string { return strings.Join(k.Path, ".") }

// ValueType is the type a JSON-path key is indexed as (Text when As is
// not set), or 0 for a column key.
func (k Key) ValueType() Type {
	if len(k.Path) == 0 {
		return 0
	}
	if k.As == 0 {
		return Text
	}
	return k.As
}

// Col is a key on column name, ascending.
func Col(name string) Key { return Key{Column: name} }

// Path is a key on the text value at path inside JSON column col.
func Path(col string, path ...string) Key { return Key{Column: col, Path: path} }

// Index is a secondary index.
type Index struct {
	Name string
	Keys []Key
	// Unique makes the index reject two rows with the same key.
	Unique bool
	// Include are columns stored in the index but not part of its key,
	// so that a query reading only them never visits the table (a
	// covering index). Engines without INCLUDE append them to the key;
	// MongoDB, whose indexes hold their keys only, ignores them.
	Include []string
	// Set, when not empty, puts the index in a named index set: it is
	// built only when that set is chosen (see Select). Indexes without a
	// Set are always built.
	Set string
}

// ForeignKey makes Columns refer to RefColumns (the primary key or a
// unique key) of table Ref. Foreign keys are added once every table is
// loaded; MongoDB has none.
type ForeignKey struct {
	Name       string
	Columns    []string
	Ref        string
	RefColumns []string
}

// Check is a constraint every row satisfies: Column Op Value, as
// "balance >= 0". SQL engines make it a CHECK constraint, MongoDB a
// collection validator; both refuse a write that breaks it.
type Check struct {
	Name   string
	Column string
	// Op is one of >=, >, <=, <, <>.
	Op string
	// Value is an int, int64, float64 or string.
	Value any
}

// Table is one table (collection) of a workload.
type Table struct {
	Name    string
	Columns []Column
	// PrimaryKey lists the key's columns; empty for a table without one.
	// On MongoDB a one-column key is the document's _id.
	PrimaryKey []string
	// Indexes are the secondary indexes, built after the load.
	Indexes []Index
	// ForeignKeys are added after every table is loaded.
	ForeignKeys []ForeignKey
	// Checks are constraints on every row: in CREATE TABLE on SQL
	// engines, a validator set once the rows are in on MongoDB.
	Checks []Check
}

// ColumnNames lists the column names in order: the order of the row
// values the table's initial data provides.
func (t *Table) ColumnNames() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// Column returns the column called name, or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}

// HasType reports whether some column has type ty.
func (t *Table) HasType(ty Type) bool {
	for _, c := range t.Columns {
		if c.Type == ty {
			return true
		}
	}
	return false
}

// IndexSets lists the names of the index sets the tables' indexes belong
// to, sorted, without duplicates.
func IndexSets(tables []*Table) []string {
	var out []string
	for _, t := range tables {
		for _, x := range t.Indexes {
			if x.Set != "" && !slices.Contains(out, x.Set) {
				out = append(out, x.Set)
			}
		}
	}
	slices.Sort(out)
	return out
}

// ErrUnknownIndexSet is returned by Select for a set no index belongs to.
var ErrUnknownIndexSet = errors.New("unknown index set")

// Select returns copies of tables keeping, of the indexes that belong to
// a set, only those of set; indexes without a set stay. An empty set
// keeps none of the set indexes. A set that no index names is an error
// wrapping ErrUnknownIndexSet that lists the known ones.
func Select(tables []*Table, set string) ([]*Table, error) {
	if known := IndexSets(tables); set != "" && !slices.Contains(known, set) {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownIndexSet, set, strings.Join(known, ", "))
	}
	out := make([]*Table, len(tables))
	for i, t := range tables {
		c := *t
		c.Indexes = nil
		for _, x := range t.Indexes {
			if x.Set == "" || x.Set == set {
				c.Indexes = append(c.Indexes, x)
			}
		}
		out[i] = &c
	}
	return out, nil
}

// FieldError is one problem with a declaration: the table, the field of
// the declaration at fault (such as "index k_1 key" or "column id"), and
// what is wrong.
type FieldError struct {
	Table string
	Field string
	Err   error
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("table %s: %s: %v", e.Table, e.Field, e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }

// Sentinel errors of Validate.
var (
	ErrDuplicate     = errors.New("declared twice")
	ErrUnknownColumn = errors.New("unknown column")
	ErrUnknownTable  = errors.New("unknown table")
	ErrBadColumn     = errors.New("bad column")
	ErrBadName       = errors.New("bad name")
)

// isIdent reports whether s is a plain lower-case SQL identifier
// ([a-z_][a-z0-9_]*, at most 63 bytes), which every engine takes
// unquoted.
func isIdent(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Validate checks one table: names present and unique (columns, indexes,
// foreign keys), sizes given where the type needs them, keys, indexes and
// foreign keys naming its columns, JSON paths only into JSON columns. It
// reports every problem at once; each is a *FieldError.
func (t *Table) Validate() []error {
	var errs []error
	bad := func(field string, format string, args ...any) {
		errs = append(errs, &FieldError{Table: t.Name, Field: field, Err: fmt.Errorf(format, args...)})
	}
	if !isIdent(t.Name) {
		bad("name", "%w: table name %q is not a lower-case identifier", ErrBadName, t.Name)
	}
	if len(t.Columns) == 0 {
		bad("columns", "%w: a table needs columns", ErrBadColumn)
	}
	// named reports a name that is not a lower-case identifier or that
	// seen already holds, and records it there.
	named := func(seen map[string]bool, field, name string) {
		switch {
		case !isIdent(name):
			bad(field, "%w: %q is not a lower-case identifier", ErrBadName, name)
		case seen[name]:
			bad(field, "%w", ErrDuplicate)
		}
		seen[name] = true
	}
	seen := map[string]bool{}
	documents := 0
	for i, c := range t.Columns {
		field := fmt.Sprintf("column %d (%s)", i+1, c.Name)
		named(seen, field, c.Name)
		switch {
		case c.Type < Int || c.Type > Date:
			bad(field, "%w: type %v", ErrBadColumn, c.Type)
		case (c.Type == Char || c.Type == Varchar || c.Type == Decimal) && c.Size <= 0:
			bad(field, "%w: %v needs a size, got %d", ErrBadColumn, c.Type, c.Size)
		case c.Type == Decimal && (c.Scale < 0 || c.Scale > c.Size):
			bad(field, "%w: decimal scale %d outside 0..%d", ErrBadColumn, c.Scale, c.Size)
		}
		switch c.Default.(type) {
		case nil, int, int64, float64, string, bool:
		default:
			bad(field, "%w: default of type %T", ErrBadColumn, c.Default)
		}
		if c.Document {
			switch {
			case c.Type != JSON:
				bad(field, "%w: a document column is JSON, not %v", ErrBadColumn, c.Type)
			case documents > 0:
				bad(field, "%w: a second document column", ErrBadColumn)
			case slices.Contains(t.PrimaryKey, c.Name):
				bad(field, "%w: a document column is not a key", ErrBadColumn)
			}
			documents++
		}
	}
	cols := func(field string, names []string) {
		if len(names) == 0 {
			bad(field, "%w: no columns", ErrUnknownColumn)
		}
		for _, n := range names {
			if t.Column(n) == nil {
				bad(field, "%w %q", ErrUnknownColumn, n)
			}
		}
	}
	if len(t.PrimaryKey) > 0 {
		cols("primary key", t.PrimaryKey)
	}
	for _, c := range t.Columns {
		if c.Type == Serial && !(len(t.PrimaryKey) == 1 && t.PrimaryKey[0] == c.Name) {
			bad("column "+c.Name, "%w: a serial column must be the one-column primary key", ErrBadColumn)
		}
	}
	names := map[string]bool{}
	for _, x := range t.Indexes {
		field := "index " + x.Name
		named(names, field, x.Name)
		if len(x.Keys) == 0 {
			bad(field+" key", "%w: no keys", ErrUnknownColumn)
		}
		for _, k := range x.Keys {
			c := t.Column(k.Column)
			switch {
			case c == nil:
				bad(field+" key", "%w %q", ErrUnknownColumn, k.Column)
			case len(k.Path) > 0 && c.Type != JSON:
				bad(field+" key", "%w: path %s into %s column %s", ErrBadColumn, k.PathName(), c.Type, c.Name)
			case len(k.Path) == 0 && k.As != 0:
				bad(field+" key", "%w: As without a path on %s", ErrBadColumn, c.Name)
			case k.Size != 0 && (k.Size < 0 || k.ValueType() != Text):
				bad(field+" key", "%w: size %d on a key that is no text path", ErrBadColumn, k.Size)
			}
			switch k.As {
			case 0, Text, BigInt, Float, Bool:
			default:
				bad(field+" key", "%w: a path is indexed as text, bigint, float or bool, not %v", ErrBadColumn, k.As)
			}
			for _, p := range k.Path {
				if p == "" || strings.ContainsAny(p, `.'"$`) {
					bad(field+" key", "%w: path element %q", ErrBadColumn, p)
				}
			}
		}
		for _, n := range x.Include {
			if t.Column(n) == nil {
				bad(field+" include", "%w %q", ErrUnknownColumn, n)
			}
		}
	}
	for _, ck := range t.Checks {
		field := "check " + ck.Name
		named(names, field, ck.Name)
		if t.Column(ck.Column) == nil {
			bad(field, "%w %q", ErrUnknownColumn, ck.Column)
		}
		switch ck.Op {
		case ">=", ">", "<=", "<", "<>":
		default:
			bad(field, "%w: operator %q (want >=, >, <=, < or <>)", ErrBadColumn, ck.Op)
		}
		switch ck.Value.(type) {
		case int, int64, float64, string:
		default:
			bad(field, "%w: value of type %T", ErrBadColumn, ck.Value)
		}
	}
	for _, fk := range t.ForeignKeys {
		field := "foreign key " + fk.Name
		named(names, field, fk.Name)
		cols(field, fk.Columns)
		if len(fk.Columns) != len(fk.RefColumns) {
			bad(field, "%w: %d columns refer to %d", ErrBadColumn, len(fk.Columns), len(fk.RefColumns))
		}
	}
	return errs
}

// Validate checks every table (see Table.Validate), that table names are
// unique, and that foreign keys refer to earlier tables' columns: tables
// are created in order, and dropped in reverse.
func Validate(tables []*Table) []error {
	var errs []error
	byName := map[string]*Table{}
	for _, t := range tables {
		errs = append(errs, t.Validate()...)
		for _, fk := range t.ForeignKeys {
			ref, ok := byName[fk.Ref]
			if !ok && fk.Ref == t.Name {
				ref, ok = t, true
			}
			if !ok {
				errs = append(errs, &FieldError{Table: t.Name, Field: "foreign key " + fk.Name, Err: fmt.Errorf("%w %q (a referenced table comes first)", ErrUnknownTable, fk.Ref)})
				continue
			}
			for _, n := range fk.RefColumns {
				if ref.Column(n) == nil {
					errs = append(errs, &FieldError{Table: t.Name, Field: "foreign key " + fk.Name, Err: fmt.Errorf("%w %s.%s", ErrUnknownColumn, fk.Ref, n)})
				}
			}
		}
		if _, dup := byName[t.Name]; dup {
			errs = append(errs, &FieldError{Table: t.Name, Field: "name", Err: ErrDuplicate})
		}
		byName[t.Name] = t
	}
	return errs
}
