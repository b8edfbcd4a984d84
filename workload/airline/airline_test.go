package airline

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/engine/mysql"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/workload"
)

func parse(t *testing.T, args ...string) *Airline {
	t.Helper()
	w := New()
	if err := w.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestValidate(t *testing.T) {
	if errs := parse(t).Validate(); len(errs) != 0 {
		t.Errorf("defaults: %v", errs)
	}
	errs := parse(t, "--day-range", "0", "--isolation", "snapshot", "--transactions", "sometimes", "--schedules", "0", "--max-retries", "-1",
		"--retry-backoff", "2s", "--retry-backoff-max", "1s").Validate()
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{"--day-range 0:", "--isolation snapshot:", "--transactions sometimes: must be on or off", "--schedules 0:", "--max-retries -1:", "--retry-backoff 2s: must be between 0 and --retry-backoff-max (1s)"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
}

// The reference data depends on the seed only, and every schedule's
// aircraft exists.
func TestReferenceData(t *testing.T) {
	a, b := generate(7, 200, 15000), generate(7, 200, 15000)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different data")
	}
	if c := generate(8, 200, 15000); reflect.DeepEqual(a.schedules[:10], c.schedules[:10]) {
		t.Error("another seed gave the same schedules")
	}
	iata := map[string]bool{}
	for _, ac := range a.aircraft {
		if iata[ac[3].(string)] {
			t.Fatalf("IATA code %s twice", ac[3])
		}
		iata[ac[3].(string)] = true
		if c := ac[4].(int64); c < 68 || c > 615 {
			t.Errorf("aircraft %v: capacity %d", ac[1], c)
		}
	}
	for _, s := range a.schedules {
		if !iata[s[9].(string)] {
			t.Fatalf("schedule %v flies unknown aircraft %v", s[0], s[9])
		}
		if s[1] == s[2] {
			t.Errorf("schedule %v from and to %v", s[0], s[1])
		}
		if d := s[10].(int64); d < 35 || d > 14*60 {
			t.Errorf("schedule %v: duration %d min", s[0], d)
		}
	}
}

func TestUpsertSQL(t *testing.T) {
	pg, _ := upsertSQL(postgres.Dialect{})
	lite, _ := upsertSQL(sqlite.Dialect{})
	if !strings.Contains(pg, `ON CONFLICT (schedule_id, "day") DO UPDATE SET seats_occupied = audit.seats_occupied + 1`) || !strings.Contains(lite, "ON CONFLICT") {
		t.Errorf("postgres %q\nsqlite %q", pg, lite)
	}
	my, _ := upsertSQL(mysql.Dialect{})
	if !strings.Contains(my, "ON DUPLICATE KEY UPDATE seats_occupied = seats_occupied + 1") {
		t.Errorf("mysql %q", my)
	}
}

func TestDayNumber(t *testing.T) {
	if got := dayNumber(time.Date(2026, 11, 21, 23, 59, 0, 0, time.UTC)); got != 20261121 {
		t.Errorf("dayNumber = %d", got)
	}
}

// The collections are the tables with the same fields, a one-column key
// as _id first, and the same rows; --transactions is recorded with the
// other options.
func TestMongoTables(t *testing.T) {
	w := parse(t, "--schedules", "7", "--aircraft", "3")
	sql, docs := w.Tables(sqlite.Dialect{}), w.Tables(mongo.Dialect{})
	if len(sql) != len(docs) {
		t.Fatalf("%d tables, %d collections", len(sql), len(docs))
	}
	for i := range sql {
		s, d := sql[i].Resolve(), docs[i].Resolve()
		fields := mongo.Fields(d.Schema)
		if s.Name != d.Name || s.Batches != d.Batches || !reflect.DeepEqual(s.Schema, d.Schema) || (len(d.Schema.PrimaryKey) == 1) != (fields[0] == "_id") {
			t.Errorf("table %s %v (%d batches), collection %s %v (%d batches)", s.Name, s.Columns, s.Batches, d.Name, fields, d.Batches)
		}
		for b := 0; b < s.Batches; b++ {
			if got, want := rows(t, d.Rows(b)), rows(t, s.Rows(b)); !reflect.DeepEqual(got, want) {
				t.Errorf("%s batch %d: the collection's rows differ from the table's", s.Name, b)
			}
		}
	}
	if audit := docs[4].Schema; audit.Name != "audit" || len(mongo.Indexes(audit)) != 1 || !mongo.Indexes(audit)[0].Unique ||
		mongo.Indexes(audit)[0].Keys.String() != `{"schedule_id":{"$numberInt":"1"},"day":{"$numberInt":"1"}}` {
		t.Errorf("audit's indexes: %+v", mongo.Indexes(audit))
	}
	if got := workload.OptionValues(w)["transactions"]; got != "on" {
		t.Errorf("transactions option recorded as %q", got)
	}
}

func rows(t *testing.T, src engine.RowSource) [][]any {
	t.Helper()
	var out [][]any
	for src.Next() {
		v, err := src.Values()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]any(nil), v...))
	}
	return out
}

// A worker rebuilt after a lost connection goes on with its user ids; a
// new run starts the next epoch.
func TestUserSeq(t *testing.T) {
	w := New()
	w.setUserBase(5<<epochShift | 77)
	p := w.userSeq(3)
	if *p != 6<<epochShift|3<<bookingBits {
		t.Fatalf("worker 3 starts at %#x", *p)
	}
	b1, err := w.nextBooking(newRand(1), p)
	if err != nil {
		t.Fatal(err)
	}
	if q := w.userSeq(3); q != p || *q != b1.user {
		t.Errorf("worker 3 rebuilt: last user %#x, want %#x", *q, b1.user)
	}
	if w.userSeq(4) == p {
		t.Error("workers 3 and 4 share their user ids")
	}
	w.setUserBase(b1.user)
	if got := *w.userSeq(3); got != 7<<epochShift|3<<bookingBits {
		t.Errorf("next run: worker 3 starts at %#x", got)
	}
}
