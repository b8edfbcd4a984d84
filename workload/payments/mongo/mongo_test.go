package mongo

import (
	"context"
	"errors"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/payments/internal/paymentstest"
)

// workload/payments' integration tests run this implementation on the
// MongoDB test server along with the SQL engines.

func newTestRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

func TestDecimalCents(t *testing.T) {
	for _, tc := range []struct {
		cents int64
		text  string
	}{{0, "0.00"}, {1, "0.01"}, {1234, "12.34"}, {-100, "-1.00"}, {100000000000000, "1000000000000.00"}} {
		want, err := bson.ParseDecimal128(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		got := decimalCents(tc.cents)
		gh, gl := got.GetBytes()
		wh, wl := want.GetBytes()
		if gh != wh || gl != wl || got.String() != tc.text {
			t.Errorf("decimalCents(%d) = %s (%x %x), want %s (%x %x)", tc.cents, got, gh, gl, tc.text, wh, wl)
		}
		if f, err := decimalFloat(got); err != nil || f != float64(tc.cents)/100 {
			t.Errorf("decimalFloat(%s) = %v %v", got, f, err)
		}
	}
	if c := cents(12.34); c != 1234 {
		t.Errorf("cents(12.34) = %d", c)
	}
}

func TestRatOf(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{{decimalCents(-250), "-5/2"}, {int32(7), "7"}, {int64(-3), "-3"}, {0.5, "1/2"}} {
		typ, data, err := bson.MarshalValue(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ratOf(bson.RawValue{Type: typ, Value: data})
		if err != nil || r.Cmp(mustRat(t, tc.want)) != 0 {
			t.Errorf("ratOf(%v) = %v %v, want %s", tc.v, r, err, tc.want)
		}
	}
	typ, data, _ := bson.MarshalValue("x")
	if _, err := ratOf(bson.RawValue{Type: typ, Value: data}); err == nil {
		t.Errorf("ratOf(a string): no error")
	}
}

func mustRat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("bad rational %q", s)
	}
	return r
}

// between stays within [lo, hi], reaches both ends of a small range, and
// spreads over a range wider than 64 bits.
func TestBetween(t *testing.T) {
	r := newTestRand()
	id := func(hex string) bson.ObjectID {
		o, err := bson.ObjectIDFromHex(hex)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	lo, hi := id("65a000000000000000000010"), id("65a000000000000000000013")
	seen := map[bson.ObjectID]bool{}
	for i := 0; i < 200; i++ {
		seen[between(r.Uint64, lo, hi)] = true
	}
	if len(seen) != 4 || !seen[lo] || !seen[hi] {
		t.Errorf("between %s and %s drew %v", lo, hi, seen)
	}
	if got := between(r.Uint64, lo, lo); got != lo {
		t.Errorf("between(lo, lo) = %s", got)
	}
	lo, hi = id("65a000000000000000000000"), id("65b000000000000000000000")
	var below, above int
	mid := id("65a800000000000000000000")
	for i := 0; i < 1000; i++ {
		got := between(r.Uint64, lo, hi)
		if objectIDLess(got, lo) || objectIDLess(hi, got) {
			t.Fatalf("between %s and %s drew %s", lo, hi, got)
		}
		if objectIDLess(got, mid) {
			below++
		} else {
			above++
		}
	}
	if below < 400 || above < 400 {
		t.Errorf("%d draws below the middle, %d above", below, above)
	}
}

// The collections hold the SQL tables' rows: the same declaration and
// the same generator, with the key column as _id (the balance becomes a
// Decimal128 of the same value when MongoDB loads it, see engine/mongo).
func TestMongoTablesHoldTheSQLRows(t *testing.T) {
	w := paymentstest.Parse(t, "--accounts", "25000", "--users", "12000", "--initial-balance", "1234.5")
	impl, err := workload.ForFamily(w, mongo.Dialect{})
	if err != nil {
		t.Fatal(err)
	}
	sql, docs := w.Define().Tables(postgres.Dialect{}), impl.Define().Tables(mongo.Dialect{})
	if len(sql) != len(docs) {
		t.Fatalf("%d tables on SQL, %d collections", len(sql), len(docs))
	}
	for i, c := range docs {
		s := sql[i]
		if c.Schema.Name != s.Schema.Name || c.Batches != s.Batches {
			t.Errorf("%s: %d batches, want %d", c.Schema.Name, c.Batches, s.Batches)
		}
		if !reflect.DeepEqual(c.Schema, s.Schema) {
			t.Errorf("%s: declared differently for MongoDB", c.Schema.Name)
		}
		fields := mongo.Fields(c.Schema)
		if fields[0] != "_id" || strings.Join(fields[1:], ",") != strings.Join(s.Columns[1:], ",") {
			t.Errorf("%s: fields %v for columns %v", c.Name, fields, s.Columns)
		}
		ix := mongo.Indexes(c.Schema)
		wantIdx := 0
		if c.Name == "transfers" {
			wantIdx = 1
			if ix[0].Name != "transfers_from" || len(ix[0].Keys) != 1 || ix[0].Keys[0].Key != "from_account" {
				t.Errorf("transfers: indexes %v", ix)
			}
		}
		if len(ix) != wantIdx {
			t.Errorf("%s: indexes %v", c.Name, ix)
		}
		if v := mongo.Validator(c.Schema); (c.Name == "accounts") != (v != nil) {
			t.Errorf("%s: validator %v", c.Name, v)
		}
		for b := 0; b < c.Batches; b++ {
			ss, cs := s.Rows(b), c.Rows(b)
			n := 0
			for ss.Next() {
				if !cs.Next() {
					t.Fatalf("%s batch %d: fewer documents than rows", c.Name, b)
				}
				sv, _ := ss.Values()
				cv, err := cs.Values()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(cv, sv) {
					t.Fatalf("%s batch %d row %d: %v, want %v", c.Name, b, n, cv, sv)
				}
				n++
			}
			if cs.Next() {
				t.Fatalf("%s batch %d: more documents than rows", c.Name, b)
			}
		}
	}
}

// TestMongoRefusesProcedure: --mode procedure has no MongoDB counterpart;
// run refuses it before any worker starts, naming the flag and value.
func TestMongoRefusesProcedure(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.Isolated(t, testdb.Mongo(t)))
	w := paymentstest.Parse(t, "--mode", "procedure")
	_, err := runner.Run(ctx, e, w, runner.Config{Threads: 1, Duration: time.Second}, nil)
	var oe *workload.OptionError
	if !errors.As(err, &oe) || oe.Flag != "mode" || !strings.Contains(err.Error(), "--mode procedure") {
		t.Fatalf("run --mode procedure on MongoDB: %v, want an OptionError naming --mode procedure", err)
	}
	t.Log(err)
	run, err := (&Payments{base: w}).Open(ctx, workload.RunEnv{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.NewWorker(ctx, paymentstest.Connect(t, e), workload.WorkerEnv{Queries: &workload.Queries{}}); !errors.As(err, &oe) {
		t.Errorf("NewWorker --mode procedure on MongoDB: %v", err)
	}
}
