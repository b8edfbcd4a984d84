package oltp

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
)

// ddlDialect is a minimal Dialect for checking generated DDL; it talks to
// no database.
type ddlDialect struct{ serial string }

func (ddlDialect) Name() string                     { return "test" }
func (ddlDialect) Family() engine.Family            { return engine.FamilySQL }
func (ddlDialect) Rebind(s string) string           { return s }
func (ddlDialect) QuoteIdent(s string) string       { return `"` + s + `"` }
func (ddlDialect) TableExistsSQL() string           { return "" }
func (ddlDialect) ColumnsSQL() string               { return "" }
func (ddlDialect) Classify(error) engine.ErrorClass { return engine.ClassOther }
func (ddlDialect) Capabilities() engine.Capabilities {
	return engine.Capabilities{Family: engine.FamilySQL}
}
func (d ddlDialect) ColumnType(c schema.Column) string {
	switch c.Type {
	case schema.Serial:
		return d.serial
	case schema.Char:
		return fmt.Sprintf("CHAR(%d)", c.Size)
	default:
		return "INTEGER"
	}
}

func newTest(t *testing.T, name string, args ...string) *Test {
	t.Helper()
	m, ok := workload.Lookup(name)
	if !ok {
		t.Fatalf("%s not registered", name)
	}
	w := m.New().(*Test)
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	if errs := w.validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	return w
}

// hashTables hashes every row of every table, in table and batch order.
func hashTables(t *testing.T, tables []workload.Table) (uint64, int) {
	t.Helper()
	h := fnv.New64a()
	n := 0
	var b [8]byte
	for _, tb := range tables {
		h.Write([]byte(tb.Name))
		for batch := 0; batch < tb.Batches; batch++ {
			src := tb.Rows(batch)
			for src.Next() {
				row, err := src.Values()
				if err != nil {
					t.Fatal(err)
				}
				binary.LittleEndian.PutUint64(b[:], uint64(row[0].(int64)))
				h.Write(b[:])
				binary.LittleEndian.PutUint64(b[:], uint64(row[1].(int64)))
				h.Write(b[:])
				h.Write([]byte(row[2].(string)))
				h.Write([]byte(row[3].(string)))
				n++
			}
			if err := src.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return h.Sum64(), n
}

// TestGoldenData pins the initial data. If it fails, the data changed:
// results are no longer comparable, so bump version in oltp.go and update
// the hashes.
func TestGoldenData(t *testing.T) {
	cases := []struct {
		args []string
		want uint64
	}{
		{[]string{"--tables=2", "--table-size=1000", "--seed-data=1"}, 0x38ae858b294852f2},
		{[]string{"--tables=2", "--table-size=1000", "--seed-data=1", "--rand-type=uniform"}, 0xc1e37d03213f1785},
		{[]string{"--tables=1", "--table-size=25000", "--seed-data=0"}, 0x2cbb93a788876ac9},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, ","), func(t *testing.T) {
			w := newTest(t, "oltp_read_write", c.args...)
			got, n := hashTables(t, w.tables(ddlDialect{serial: "SERIAL"}))
			if n != w.opts.tables*w.opts.tableSize {
				t.Fatalf("%d rows, want %d", n, w.opts.tables*w.opts.tableSize)
			}
			if got != c.want {
				t.Errorf("data hash = %#x, want %#x", got, c.want)
			}
		})
	}
}

func TestDataDeterministicAndPartitioned(t *testing.T) {
	w := newTest(t, "oltp_read_write", "--tables=2", "--table-size=25001", "--seed-data=7")
	tables := w.tables(ddlDialect{serial: "SERIAL"})
	for _, tb := range tables {
		if tb.Batches != 3 {
			t.Fatalf("%s: %d batches, want 3", tb.Name, tb.Batches)
		}
		seen := make([]bool, 25001+1)
		// Batches in reverse order, each read twice: same rows.
		for b := tb.Batches - 1; b >= 0; b-- {
			first := collect(t, tb.Rows(b))
			second := collect(t, tb.Rows(b))
			if len(first) != len(second) {
				t.Fatalf("batch %d: %d then %d rows", b, len(first), len(second))
			}
			for i := range first {
				if first[i] != second[i] {
					t.Fatalf("batch %d row %d differs: %v vs %v", b, i, first[i], second[i])
				}
				id := first[i][0].(int64)
				if id < 1 || id > 25001 || seen[id] {
					t.Fatalf("batch %d: id %d out of range or repeated", b, id)
				}
				seen[id] = true
				k := first[i][1].(int64)
				if k < 1 || k > 25001 {
					t.Fatalf("k %d out of [1, 25001]", k)
				}
				if !MatchesTemplate(first[i][2].(string), CGroups) || !MatchesTemplate(first[i][3].(string), PadGroups) {
					t.Fatalf("bad c/pad %q %q", first[i][2], first[i][3])
				}
			}
		}
		for id := 1; id <= 25001; id++ {
			if !seen[id] {
				t.Fatalf("%s: id %d missing", tb.Name, id)
			}
		}
	}
	// Tables and seeds give different data.
	a := collect(t, tables[0].Rows(0))
	b := collect(t, tables[1].Rows(0))
	if a[0] == b[0] {
		t.Error("tables 1 and 2 start with the same row")
	}
	w2 := newTest(t, "oltp_read_write", "--tables=2", "--table-size=25001", "--seed-data=8")
	if c := collect(t, w2.tables(ddlDialect{})[0].Rows(0)); c[0] == a[0] {
		t.Error("seeds 7 and 8 give the same first row")
	}
}

type row4 [4]any

func collect(t *testing.T, src engine.RowSource) []row4 {
	t.Helper()
	var out []row4
	for src.Next() {
		v, err := src.Values()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, row4{v[0], v[1], v[2], v[3]})
	}
	return out
}

func TestTablesDDL(t *testing.T) {
	w := newTest(t, "oltp_read_write", "--tables=2")
	tb := w.tables(ddlDialect{serial: "SERIAL"})
	if len(tb) != 2 || tb[1].Resolve().Name != "sbtest2" {
		t.Fatalf("tables %v", tb)
	}
	if errs := schema.Validate([]*schema.Table{tb[0].Schema, tb[1].Schema}); len(errs) > 0 {
		t.Fatal(errs)
	}
	// Dialects whose tables are organised by their key get it in CREATE
	// TABLE; --auto-inc makes id the dialect's serial column.
	lite := sqlite.Dialect{}
	want := "CREATE TABLE sbtest2 (\n  id INTEGER,\n  k INTEGER DEFAULT 0 NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n)"
	if got := strings.Join(lite.CreateTableSQL(tb[1].Schema), ";"); got != want {
		t.Errorf("Create =\n%s\nwant\n%s", got, want)
	}
	if got := strings.Join(lite.AfterLoadSQL(tb[1].Schema), ";"); got != "CREATE INDEX k_2 ON sbtest2 (k)" {
		t.Errorf("AfterLoad = %q", got)
	}
	if got := strings.Join(tb[1].Resolve().Columns, ","); got != "id,k,c,pad" {
		t.Errorf("Columns = %v", got)
	}

	// Dialects that build primary keys faster after the load get the key
	// after the load, before the secondary index; those that need it get
	// a sequence reset after that.
	pg := postgres.Dialect{}
	if got := strings.Join(pg.CreateTableSQL(tb[0].Schema), ";"); strings.Contains(got, "PRIMARY KEY") || !strings.Contains(got, "id SERIAL,") {
		t.Errorf("deferred primary key: Create %q", got)
	}
	want = pg.AddPrimaryKeySQL("sbtest1", "id") + ";CREATE INDEX k_1 ON sbtest1 (k);" + pg.ResetSequenceSQL("sbtest1", "id") + ";ANALYZE sbtest1"
	if got := strings.Join(pg.AfterLoadSQL(tb[0].Schema), ";"); got != want {
		t.Errorf("AfterLoad = %q, want %q", got, want)
	}

	w = newTest(t, "oltp_read_write", "--auto-inc=false", "--create-secondary=false")
	tb = w.tables(ddlDialect{serial: "SERIAL"})
	create, after := strings.Join(pg.CreateTableSQL(tb[0].Schema), ";"), pg.AfterLoadSQL(tb[0].Schema)
	if !strings.Contains(create, "id INTEGER NOT NULL,") || strings.Join(after, ";") != pg.AddPrimaryKeySQL("sbtest1", "id")+";ANALYZE sbtest1" {
		t.Errorf("no auto-inc: Create = %s, AfterLoad = %q", create, after)
	}

	// oltp_insert without auto-inc starts from empty tables, as sysbench.
	w = newTest(t, "oltp_insert", "--auto-inc=false")
	if b := w.tables(ddlDialect{})[0].Batches; b != 0 {
		t.Errorf("oltp_insert --auto-inc=false: %d batches, want 0", b)
	}
}

func BenchmarkRows(b *testing.B) {
	m, _ := workload.Lookup("oltp_read_write")
	w := m.New().(*Test)
	_ = w.Define().Options.Parse([]string{"--table-size=10000"})
	tb := w.tables(ddlDialect{serial: "SERIAL"})[0]
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		src := tb.Rows(0)
		for src.Next() {
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/row")
}
