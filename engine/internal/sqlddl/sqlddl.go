// Package sqlddl renders declared tables (package schema) as SQL
// DDL: the outline every SQL dialect shares (CREATE TABLE with column
// definitions and constraints, CREATE INDEX, ALTER TABLE … ADD CONSTRAINT
// … FOREIGN KEY), with what differs between dialects (types, defaults,
// expression keys, INCLUDE, where the primary key goes) supplied by each
// engine's Dialect. Each dialect states its column types as data (Types);
// Types.Column is the one place they are rendered.
//
// Identifiers are written as declared, unquoted: schema names are plain
// lower-case identifiers (schema.Validate), which every dialect takes as
// they are, and the workloads' statements name them the same way.
package sqlddl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/schema"
)

// Dialect is what one SQL dialect supplies.
type Dialect struct {
	// Types names the column types in DDL; NOT NULL and DEFAULT are
	// added by CreateTable.
	Types Types
	// PathExpr is the expression of a JSON-path key (k.Path is set).
	PathExpr func(k schema.Key) string
	// GeneratedPaths makes CREATE TABLE add a virtual generated column
	// for every JSON-path key of every index, which the index then
	// indexes (MariaDB, which has no expression indexes). The column's
	// name is GeneratedName; its type PathType.
	GeneratedPaths bool
	// PathType is the column type of a generated JSON-path column.
	PathType func(k schema.Key) string
	// Include tells whether CREATE INDEX takes INCLUDE (…); without it
	// the included columns are appended to the key.
	Include bool
	// DeferPK leaves the primary key out of CREATE TABLE; AfterLoad adds
	// it first, with AddPK.
	DeferPK bool
	// AddPK is the statement adding a deferred primary key.
	AddPK func(table string, cols []string) string
	// ResetSerial, when set, is the statement moving a Serial column's
	// counter past the loaded values (PostgreSQL's sequences).
	ResetSerial func(table, col string) string
	// Bool renders a boolean literal (TRUE, 1).
	Bool func(b bool) string
}

// Literal renders a column default: numbers as they are, strings quoted
// with doubled single quotes, booleans by d.Bool.
func (d Dialect) Literal(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case bool:
		if d.Bool != nil {
			return d.Bool(x)
		}
		if x {
			return "TRUE"
		}
		return "FALSE"
	}
	panic(fmt.Sprintf("sqlddl: default of type %T", v))
}

// GeneratedName is the name of the generated column behind key number i
// (0-based) of index x.
func GeneratedName(x schema.Index, i int) string {
	return fmt.Sprintf("%s_k%d", x.Name, i+1)
}

// CreateTable is t's CREATE TABLE statement.
func (d Dialect) CreateTable(t *schema.Table) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + t.Name + " (\n")
	for n, c := range t.Columns {
		if n > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  " + c.Name + " " + d.Types.Column(c))
		if c.Default != nil {
			b.WriteString(" DEFAULT " + d.Literal(c.Default))
		}
		if !c.Null && c.Type != schema.Serial {
			b.WriteString(" NOT NULL")
		}
	}
	if d.GeneratedPaths {
		for _, x := range t.Indexes {
			for i, k := range x.Keys {
				if len(k.Path) > 0 {
					b.WriteString(",\n  " + GeneratedName(x, i) + " " + d.PathType(k) + " AS (" + d.PathExpr(k) + ") VIRTUAL")
				}
			}
		}
	}
	if len(t.PrimaryKey) > 0 && !d.DeferPK {
		b.WriteString(",\n  PRIMARY KEY (" + strings.Join(t.PrimaryKey, ", ") + ")")
	}
	for _, ck := range t.Checks {
		b.WriteString(",\n  CONSTRAINT " + ck.Name + " CHECK (" + ck.Column + " " + ck.Op + " " + d.Literal(ck.Value) + ")")
	}
	b.WriteString("\n)")
	return b.String()
}

// CreateIndex is the CREATE INDEX statement of x on t.
func (d Dialect) CreateIndex(t *schema.Table, x schema.Index) string {
	keys := make([]string, 0, len(x.Keys)+len(x.Include))
	for i, k := range x.Keys {
		var e string
		switch {
		case len(k.Path) == 0:
			e = k.Column
		case d.GeneratedPaths:
			e = GeneratedName(x, i)
		default:
			e = "(" + d.PathExpr(k) + ")"
		}
		if k.Desc {
			e += " DESC"
		}
		keys = append(keys, e)
	}
	if !d.Include {
		keys = append(keys, x.Include...)
	}
	s := "CREATE "
	if x.Unique {
		s += "UNIQUE "
	}
	s += "INDEX " + x.Name + " ON " + t.Name + " (" + strings.Join(keys, ", ") + ")"
	if d.Include && len(x.Include) > 0 {
		s += " INCLUDE (" + strings.Join(x.Include, ", ") + ")"
	}
	return s
}

// AfterLoad lists the statements run once t's rows are in: the deferred
// primary key, the secondary indexes in order, the Serial counters'
// resets.
func (d Dialect) AfterLoad(t *schema.Table) []string {
	var out []string
	if d.DeferPK && len(t.PrimaryKey) > 0 {
		out = append(out, d.AddPK(t.Name, t.PrimaryKey))
	}
	for _, x := range t.Indexes {
		out = append(out, d.CreateIndex(t, x))
	}
	if d.ResetSerial != nil {
		for _, c := range t.Columns {
			if c.Type == schema.Serial {
				out = append(out, d.ResetSerial(t.Name, c.Name))
			}
		}
	}
	return out
}

// ForeignKeys lists the ALTER TABLE statements adding t's foreign keys.
func (d Dialect) ForeignKeys(t *schema.Table) []string {
	out := make([]string, 0, len(t.ForeignKeys))
	for _, fk := range t.ForeignKeys {
		out = append(out, "ALTER TABLE "+t.Name+" ADD "+fkConstraint(fk))
	}
	return out
}

func fkConstraint(fk schema.ForeignKey) string {
	return fmt.Sprintf("CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s)",
		fk.Name, strings.Join(fk.Columns, ", "), fk.Ref, strings.Join(fk.RefColumns, ", "))
}

// Types is a dialect's column types as data: for every schema.Type, its
// name in DDL. The first %d in a name stands for the column's Size, the
// second for its Scale ("VARCHAR(%d)", "NUMERIC(%d, %d)"); a name without
// them ignores both. A Serial's name includes what makes the database
// number the column (SERIAL, AUTO_INCREMENT) but never its key: the
// primary key is declared as a table constraint.
type Types map[schema.Type]string

// Column is the type of a column declared as c, as ts names it, with c's
// Size and Scale in place of the name's %d. NOT NULL and DEFAULT are left
// to CreateTable. It panics when ts has no name for c.Type: schema.Validate
// refuses unknown types before any dialect sees them.
func (ts Types) Column(c schema.Column) string {
	s, ok := ts[c.Type]
	if !ok {
		panic(fmt.Sprintf("sqlddl: no name for column type %v", c.Type))
	}
	for _, n := range [...]int{c.Size, c.Scale} {
		s = strings.Replace(s, "%d", strconv.Itoa(n), 1)
	}
	return s
}

// PathLiteral is the string literal of a JSON path for MySQL's and
// SQLite's JSON functions: '$.a.b'.
func PathLiteral(path []string) string {
	return "'$." + strings.Join(path, ".") + "'"
}
