package sqlddl_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sqlddl"
	"github.com/dbarena/dbarena/engine/mysql"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/schema"
)

// typeCases is every column type, with the sizes and scales the types
// that take them are declared with, and sizes on the types that ignore
// them.
var typeCases = []schema.Column{
	{Type: schema.Int},
	{Type: schema.Int, Size: 5, Scale: 2},
	{Type: schema.BigInt},
	{Type: schema.BigInt, Size: 20},
	{Type: schema.SmallInt},
	{Type: schema.Serial},
	{Type: schema.Serial, Size: 9},
	{Type: schema.Decimal, Size: 1},
	{Type: schema.Decimal, Size: 10, Scale: 2},
	{Type: schema.Decimal, Size: 12, Scale: 2},
	{Type: schema.Decimal, Size: 38, Scale: 10},
	{Type: schema.Decimal, Size: 65, Scale: 30},
	{Type: schema.Decimal, Size: 4, Scale: 4},
	{Type: schema.Float},
	{Type: schema.Float, Size: 53},
	{Type: schema.Char, Size: 1},
	{Type: schema.Char, Size: 2},
	{Type: schema.Char, Size: 255},
	{Type: schema.Char, Size: 24, Scale: 3},
	{Type: schema.Varchar, Size: 1},
	{Type: schema.Varchar, Size: 60},
	{Type: schema.Varchar, Size: 255},
	{Type: schema.Varchar, Size: 65535},
	{Type: schema.Text},
	{Type: schema.Text, Size: 100},
	{Type: schema.Timestamp},
	{Type: schema.Timestamp, Size: 6},
	{Type: schema.Date},
	{Type: schema.Bool},
	{Type: schema.Bytes},
	{Type: schema.Bytes, Size: 16},
	{Type: schema.JSON},
}

// dialect is what the test renders with: every SQL engine's dialect
// renders declared tables and tells their catalogue types.
type dialect interface {
	engine.SQLDialect
	engine.SchemaRenderer
	engine.TableInspector
}

// TestColumnTypeDDL pins, for every engine, the DDL of every column type
// in CREATE TABLE (nullable, NOT NULL, with a default), the type
// SQLDialect.ColumnType gives and the type the catalogue reports for it
// (TableInspector.DeclaredType).
func TestColumnTypeDDL(t *testing.T) {
	for _, tc := range []struct {
		d    dialect
		want string
	}{
		{postgres.Dialect{}, `
int 0 0: INTEGER | INTEGER NOT NULL | INTEGER DEFAULT 7 NOT NULL | integer
int 5 2: INTEGER | INTEGER NOT NULL | INTEGER DEFAULT 7 NOT NULL | integer
bigint 0 0: BIGINT | BIGINT NOT NULL | BIGINT DEFAULT 7 NOT NULL | bigint
bigint 20 0: BIGINT | BIGINT NOT NULL | BIGINT DEFAULT 7 NOT NULL | bigint
smallint 0 0: SMALLINT | SMALLINT NOT NULL | SMALLINT DEFAULT 7 NOT NULL | smallint
serial 0 0: SERIAL | SERIAL | SERIAL DEFAULT 7 | integer
serial 9 0: SERIAL | SERIAL | SERIAL DEFAULT 7 | integer
decimal 1 0: NUMERIC(1, 0) | NUMERIC(1, 0) NOT NULL | NUMERIC(1, 0) DEFAULT 7 NOT NULL | numeric(1,0)
decimal 10 2: NUMERIC(10, 2) | NUMERIC(10, 2) NOT NULL | NUMERIC(10, 2) DEFAULT 7 NOT NULL | numeric(10,2)
decimal 12 2: NUMERIC(12, 2) | NUMERIC(12, 2) NOT NULL | NUMERIC(12, 2) DEFAULT 7 NOT NULL | numeric(12,2)
decimal 38 10: NUMERIC(38, 10) | NUMERIC(38, 10) NOT NULL | NUMERIC(38, 10) DEFAULT 7 NOT NULL | numeric(38,10)
decimal 65 30: NUMERIC(65, 30) | NUMERIC(65, 30) NOT NULL | NUMERIC(65, 30) DEFAULT 7 NOT NULL | numeric(65,30)
decimal 4 4: NUMERIC(4, 4) | NUMERIC(4, 4) NOT NULL | NUMERIC(4, 4) DEFAULT 7 NOT NULL | numeric(4,4)
float 0 0: DOUBLE PRECISION | DOUBLE PRECISION NOT NULL | DOUBLE PRECISION DEFAULT 1.5 NOT NULL | double precision
float 53 0: DOUBLE PRECISION | DOUBLE PRECISION NOT NULL | DOUBLE PRECISION DEFAULT 1.5 NOT NULL | double precision
char 1 0: CHAR(1) | CHAR(1) NOT NULL | CHAR(1) DEFAULT 'x' NOT NULL | character(1)
char 2 0: CHAR(2) | CHAR(2) NOT NULL | CHAR(2) DEFAULT 'x' NOT NULL | character(2)
char 255 0: CHAR(255) | CHAR(255) NOT NULL | CHAR(255) DEFAULT 'x' NOT NULL | character(255)
char 24 3: CHAR(24) | CHAR(24) NOT NULL | CHAR(24) DEFAULT 'x' NOT NULL | character(24)
varchar 1 0: VARCHAR(1) | VARCHAR(1) NOT NULL | VARCHAR(1) DEFAULT 'x' NOT NULL | character varying(1)
varchar 60 0: VARCHAR(60) | VARCHAR(60) NOT NULL | VARCHAR(60) DEFAULT 'x' NOT NULL | character varying(60)
varchar 255 0: VARCHAR(255) | VARCHAR(255) NOT NULL | VARCHAR(255) DEFAULT 'x' NOT NULL | character varying(255)
varchar 65535 0: VARCHAR(65535) | VARCHAR(65535) NOT NULL | VARCHAR(65535) DEFAULT 'x' NOT NULL | character varying(65535)
text 0 0: TEXT | TEXT NOT NULL | TEXT DEFAULT 'x' NOT NULL | text
text 100 0: TEXT | TEXT NOT NULL | TEXT DEFAULT 'x' NOT NULL | text
timestamp 0 0: TIMESTAMP | TIMESTAMP NOT NULL | TIMESTAMP DEFAULT 'x' NOT NULL | timestamp without time zone
timestamp 6 0: TIMESTAMP | TIMESTAMP NOT NULL | TIMESTAMP DEFAULT 'x' NOT NULL | timestamp without time zone
date 0 0: DATE | DATE NOT NULL | DATE DEFAULT 'x' NOT NULL | date
bool 0 0: BOOLEAN | BOOLEAN NOT NULL | BOOLEAN DEFAULT TRUE NOT NULL | boolean
bytes 0 0: BYTEA | BYTEA NOT NULL | BYTEA DEFAULT 'x' NOT NULL | bytea
bytes 16 0: BYTEA | BYTEA NOT NULL | BYTEA DEFAULT 'x' NOT NULL | bytea
json 0 0: JSONB | JSONB NOT NULL | JSONB DEFAULT 'x' NOT NULL | jsonb
`},
		{mysql.Dialect{}, `
int 0 0: INT | INT NOT NULL | INT DEFAULT 7 NOT NULL | int
int 5 2: INT | INT NOT NULL | INT DEFAULT 7 NOT NULL | int
bigint 0 0: BIGINT | BIGINT NOT NULL | BIGINT DEFAULT 7 NOT NULL | bigint
bigint 20 0: BIGINT | BIGINT NOT NULL | BIGINT DEFAULT 7 NOT NULL | bigint
smallint 0 0: SMALLINT | SMALLINT NOT NULL | SMALLINT DEFAULT 7 NOT NULL | smallint
serial 0 0: INTEGER NOT NULL AUTO_INCREMENT | INTEGER NOT NULL AUTO_INCREMENT | INTEGER NOT NULL AUTO_INCREMENT DEFAULT 7 | int
serial 9 0: INTEGER NOT NULL AUTO_INCREMENT | INTEGER NOT NULL AUTO_INCREMENT | INTEGER NOT NULL AUTO_INCREMENT DEFAULT 7 | int
decimal 1 0: DECIMAL(1, 0) | DECIMAL(1, 0) NOT NULL | DECIMAL(1, 0) DEFAULT 7 NOT NULL | decimal(1,0)
decimal 10 2: DECIMAL(10, 2) | DECIMAL(10, 2) NOT NULL | DECIMAL(10, 2) DEFAULT 7 NOT NULL | decimal(10,2)
decimal 12 2: DECIMAL(12, 2) | DECIMAL(12, 2) NOT NULL | DECIMAL(12, 2) DEFAULT 7 NOT NULL | decimal(12,2)
decimal 38 10: DECIMAL(38, 10) | DECIMAL(38, 10) NOT NULL | DECIMAL(38, 10) DEFAULT 7 NOT NULL | decimal(38,10)
decimal 65 30: DECIMAL(65, 30) | DECIMAL(65, 30) NOT NULL | DECIMAL(65, 30) DEFAULT 7 NOT NULL | decimal(65,30)
decimal 4 4: DECIMAL(4, 4) | DECIMAL(4, 4) NOT NULL | DECIMAL(4, 4) DEFAULT 7 NOT NULL | decimal(4,4)
float 0 0: DOUBLE | DOUBLE NOT NULL | DOUBLE DEFAULT 1.5 NOT NULL | double
float 53 0: DOUBLE | DOUBLE NOT NULL | DOUBLE DEFAULT 1.5 NOT NULL | double
char 1 0: CHAR(1) | CHAR(1) NOT NULL | CHAR(1) DEFAULT 'x' NOT NULL | char(1)
char 2 0: CHAR(2) | CHAR(2) NOT NULL | CHAR(2) DEFAULT 'x' NOT NULL | char(2)
char 255 0: CHAR(255) | CHAR(255) NOT NULL | CHAR(255) DEFAULT 'x' NOT NULL | char(255)
char 24 3: CHAR(24) | CHAR(24) NOT NULL | CHAR(24) DEFAULT 'x' NOT NULL | char(24)
varchar 1 0: VARCHAR(1) | VARCHAR(1) NOT NULL | VARCHAR(1) DEFAULT 'x' NOT NULL | varchar(1)
varchar 60 0: VARCHAR(60) | VARCHAR(60) NOT NULL | VARCHAR(60) DEFAULT 'x' NOT NULL | varchar(60)
varchar 255 0: VARCHAR(255) | VARCHAR(255) NOT NULL | VARCHAR(255) DEFAULT 'x' NOT NULL | varchar(255)
varchar 65535 0: VARCHAR(65535) | VARCHAR(65535) NOT NULL | VARCHAR(65535) DEFAULT 'x' NOT NULL | varchar(65535)
text 0 0: LONGTEXT | LONGTEXT NOT NULL | LONGTEXT DEFAULT 'x' NOT NULL | longtext
text 100 0: LONGTEXT | LONGTEXT NOT NULL | LONGTEXT DEFAULT 'x' NOT NULL | longtext
timestamp 0 0: DATETIME(6) | DATETIME(6) NOT NULL | DATETIME(6) DEFAULT 'x' NOT NULL | datetime(6)
timestamp 6 0: DATETIME(6) | DATETIME(6) NOT NULL | DATETIME(6) DEFAULT 'x' NOT NULL | datetime(6)
date 0 0: DATE | DATE NOT NULL | DATE DEFAULT 'x' NOT NULL | date
bool 0 0: BOOLEAN | BOOLEAN NOT NULL | BOOLEAN DEFAULT TRUE NOT NULL | tinyint(1)
bytes 0 0: LONGBLOB | LONGBLOB NOT NULL | LONGBLOB DEFAULT 'x' NOT NULL | longblob
bytes 16 0: LONGBLOB | LONGBLOB NOT NULL | LONGBLOB DEFAULT 'x' NOT NULL | longblob
json 0 0: JSON | JSON NOT NULL | JSON DEFAULT 'x' NOT NULL | longtext
`},
		{sqlite.Dialect{}, `
int 0 0: INTEGER | INTEGER NOT NULL | INTEGER DEFAULT 7 NOT NULL | integer
int 5 2: INTEGER | INTEGER NOT NULL | INTEGER DEFAULT 7 NOT NULL | integer
bigint 0 0: BIGINT | BIGINT NOT NULL | BIGINT DEFAULT 7 NOT NULL | bigint
bigint 20 0: BIGINT | BIGINT NOT NULL | BIGINT DEFAULT 7 NOT NULL | bigint
smallint 0 0: SMALLINT | SMALLINT NOT NULL | SMALLINT DEFAULT 7 NOT NULL | smallint
serial 0 0: INTEGER | INTEGER | INTEGER DEFAULT 7 | integer
serial 9 0: INTEGER | INTEGER | INTEGER DEFAULT 7 | integer
decimal 1 0: DECIMAL(1, 0) | DECIMAL(1, 0) NOT NULL | DECIMAL(1, 0) DEFAULT 7 NOT NULL | decimal(1,0)
decimal 10 2: DECIMAL(10, 2) | DECIMAL(10, 2) NOT NULL | DECIMAL(10, 2) DEFAULT 7 NOT NULL | decimal(10,2)
decimal 12 2: DECIMAL(12, 2) | DECIMAL(12, 2) NOT NULL | DECIMAL(12, 2) DEFAULT 7 NOT NULL | decimal(12,2)
decimal 38 10: DECIMAL(38, 10) | DECIMAL(38, 10) NOT NULL | DECIMAL(38, 10) DEFAULT 7 NOT NULL | decimal(38,10)
decimal 65 30: DECIMAL(65, 30) | DECIMAL(65, 30) NOT NULL | DECIMAL(65, 30) DEFAULT 7 NOT NULL | decimal(65,30)
decimal 4 4: DECIMAL(4, 4) | DECIMAL(4, 4) NOT NULL | DECIMAL(4, 4) DEFAULT 7 NOT NULL | decimal(4,4)
float 0 0: DOUBLE | DOUBLE NOT NULL | DOUBLE DEFAULT 1.5 NOT NULL | double
float 53 0: DOUBLE | DOUBLE NOT NULL | DOUBLE DEFAULT 1.5 NOT NULL | double
char 1 0: CHAR(1) | CHAR(1) NOT NULL | CHAR(1) DEFAULT 'x' NOT NULL | char(1)
char 2 0: CHAR(2) | CHAR(2) NOT NULL | CHAR(2) DEFAULT 'x' NOT NULL | char(2)
char 255 0: CHAR(255) | CHAR(255) NOT NULL | CHAR(255) DEFAULT 'x' NOT NULL | char(255)
char 24 3: CHAR(24) | CHAR(24) NOT NULL | CHAR(24) DEFAULT 'x' NOT NULL | char(24)
varchar 1 0: VARCHAR(1) | VARCHAR(1) NOT NULL | VARCHAR(1) DEFAULT 'x' NOT NULL | varchar(1)
varchar 60 0: VARCHAR(60) | VARCHAR(60) NOT NULL | VARCHAR(60) DEFAULT 'x' NOT NULL | varchar(60)
varchar 255 0: VARCHAR(255) | VARCHAR(255) NOT NULL | VARCHAR(255) DEFAULT 'x' NOT NULL | varchar(255)
varchar 65535 0: VARCHAR(65535) | VARCHAR(65535) NOT NULL | VARCHAR(65535) DEFAULT 'x' NOT NULL | varchar(65535)
text 0 0: TEXT | TEXT NOT NULL | TEXT DEFAULT 'x' NOT NULL | text
text 100 0: TEXT | TEXT NOT NULL | TEXT DEFAULT 'x' NOT NULL | text
timestamp 0 0: TIMESTAMP | TIMESTAMP NOT NULL | TIMESTAMP DEFAULT 'x' NOT NULL | timestamp
timestamp 6 0: TIMESTAMP | TIMESTAMP NOT NULL | TIMESTAMP DEFAULT 'x' NOT NULL | timestamp
date 0 0: DATE | DATE NOT NULL | DATE DEFAULT 'x' NOT NULL | date
bool 0 0: BOOLEAN | BOOLEAN NOT NULL | BOOLEAN DEFAULT TRUE NOT NULL | boolean
bytes 0 0: BLOB | BLOB NOT NULL | BLOB DEFAULT 'x' NOT NULL | blob
bytes 16 0: BLOB | BLOB NOT NULL | BLOB DEFAULT 'x' NOT NULL | blob
json 0 0: TEXT | TEXT NOT NULL | TEXT DEFAULT 'x' NOT NULL | text
`},
	} {
		t.Run(tc.d.Name(), func(t *testing.T) {
			got := renderTypes(t, tc.d)
			want := strings.Split(strings.TrimSpace(tc.want), "\n")
			for i := 0; i < max(len(got), len(want)); i++ {
				var g, w string
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				if g != w {
					t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
				}
			}
			if t.Failed() {
				t.Logf("got:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}

// renderTypes renders one table with every case of typeCases three times
// (nullable, NOT NULL, NOT NULL with a default) and returns a line per
// case: its type, size and scale, its three column definitions as CREATE
// TABLE writes them (without the name), then the catalogue's type.
func renderTypes(t *testing.T, d dialect) []string {
	t.Helper()
	tb := &schema.Table{Name: "types"}
	for i, c := range typeCases {
		n, nn, def := c, c, c
		n.Name, n.Null = fmt.Sprintf("n%d", i), true
		nn.Name = fmt.Sprintf("nn%d", i)
		def.Name, def.Default = fmt.Sprintf("d%d", i), defaultOf(c.Type)
		tb.Columns = append(tb.Columns, n, nn, def)
	}
	stmts := d.CreateTableSQL(tb)
	if len(stmts) != 1 {
		t.Fatalf("CreateTableSQL = %q, want one statement", stmts)
	}
	lines := strings.Split(stmts[0], "\n")
	if len(lines) != 2+len(tb.Columns) {
		t.Fatalf("CREATE TABLE has %d lines, want %d:\n%s", len(lines), 2+len(tb.Columns), stmts[0])
	}
	def := func(k int) string {
		l := strings.TrimSuffix(strings.TrimPrefix(lines[1+k], "  "), ",")
		name := tb.Columns[k].Name + " "
		if !strings.HasPrefix(l, name) {
			t.Fatalf("line %q does not define %s", l, tb.Columns[k].Name)
		}
		return l[len(name):]
	}
	out := make([]string, len(typeCases))
	for i, c := range typeCases {
		if got := d.ColumnType(c); got != def(3*i) {
			t.Errorf("ColumnType(%v, %d, %d) = %q, want %q as in CREATE TABLE", c.Type, c.Size, c.Scale, got, def(3*i))
		}
		out[i] = fmt.Sprintf("%v %d %d: %s | %s | %s | %s", c.Type, c.Size, c.Scale,
			def(3*i), def(3*i+1), def(3*i+2), d.DeclaredType(c))
	}
	return out
}

// defaultOf is a default value of a column of type ty.
func defaultOf(ty schema.Type) any {
	switch ty {
	case schema.Int, schema.BigInt, schema.SmallInt, schema.Serial, schema.Decimal:
		return 7
	case schema.Float:
		return 1.5
	case schema.Bool:
		return true
	}
	return "x"
}

// TestTypesColumn checks Types.Column's substitution of Size and Scale and
// its panic on a type the table does not name.
func TestTypesColumn(t *testing.T) {
	ts := sqlddl.Types{schema.Int: "INT", schema.Char: "CHAR(%d)", schema.Decimal: "DEC(%d,%d)"}
	for _, tc := range []struct {
		c    schema.Column
		want string
	}{
		{schema.Column{Type: schema.Int, Size: 3, Scale: 1}, "INT"},
		{schema.Column{Type: schema.Char, Size: 3, Scale: 1}, "CHAR(3)"},
		{schema.Column{Type: schema.Decimal, Size: 12, Scale: 2}, "DEC(12,2)"},
	} {
		if got := ts.Column(tc.c); got != tc.want {
			t.Errorf("Column(%v, %d, %d) = %q, want %q", tc.c.Type, tc.c.Size, tc.c.Scale, got, tc.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Column of a type the table lacks did not panic")
		}
	}()
	ts.Column(schema.Column{Type: schema.Text})
}
