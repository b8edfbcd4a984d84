package load_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/oltp/mongo"
)

// userTable is what a user does to sbtest2 after dbarena prepared it: drop
// it and create a table of their own by that name, with a row in it.
type userTable struct {
	replace func(t *testing.T, c engine.Conn)
	// same does it with a table of the very columns dbarena declares.
	same func(t *testing.T, c engine.Conn)
	// rows counts the rows of the user's sbtest2, -1 when it is gone.
	rows func(t *testing.T, c engine.Conn) int64
}

var sqlUserTable = userTable{
	replace: func(t *testing.T, c engine.Conn) {
		sc, err := engine.SQL(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{
			"DROP TABLE sbtest2",
			"CREATE TABLE sbtest2 (id INT PRIMARY KEY, note TEXT)",
			"INSERT INTO sbtest2 VALUES (1, 'mine')",
		} {
			if err := sc.Exec(context.Background(), s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	},
	same: func(t *testing.T, c engine.Conn) {
		sc, err := engine.SQL(c)
		if err != nil {
			t.Fatal(err)
		}
		sameShape(t, c)
		if err := sc.Exec(context.Background(), "INSERT INTO sbtest2 (id, k, c, pad) VALUES (1, 1, 'mine', '')"); err != nil {
			t.Fatal(err)
		}
	},
	rows: func(t *testing.T, c engine.Conn) int64 {
		sc, err := engine.SQL(c)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ok, err := c.Catalog().TableExists(ctx, "sbtest2")
		if err != nil || !ok {
			return -1
		}
		cols, err := c.Catalog().Columns(ctx, "sbtest2")
		if err != nil {
			t.Fatal(err)
		}
		col := "note"
		if slices.Contains(cols, "c") {
			col = "c"
		}
		var n int64
		if err := sc.QueryRow(ctx, "SELECT COUNT(*) FROM sbtest2 WHERE "+col+" = 'mine'", nil, &n); err != nil {
			t.Fatal(err)
		}
		return n
	},
}

var mongoUserTable = userTable{
	replace: func(t *testing.T, c engine.Conn) {
		db := c.(*mongo.Conn).DB()
		ctx := context.Background()
		if err := db.Collection("sbtest2").Drop(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Collection("sbtest2").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "note", Value: "mine"}}); err != nil {
			t.Fatal(err)
		}
	},
	same: func(t *testing.T, c engine.Conn) {
		sameShape(t, c)
		doc := bson.D{{Key: "_id", Value: int64(1)}, {Key: "k", Value: int64(1)}, {Key: "c", Value: "mine"}, {Key: "pad", Value: ""}}
		if _, err := c.(*mongo.Conn).DB().Collection("sbtest2").InsertOne(context.Background(), doc); err != nil {
			t.Fatal(err)
		}
	},
	rows: func(t *testing.T, c engine.Conn) int64 {
		ctx := context.Background()
		ok, err := c.Catalog().TableExists(ctx, "sbtest2")
		if err != nil || !ok {
			return -1
		}
		n, err := c.(*mongo.Conn).DB().Collection("sbtest2").CountDocuments(ctx, bson.D{{Key: "$or", Value: bson.A{
			bson.D{{Key: "note", Value: "mine"}}, bson.D{{Key: "c", Value: "mine"}}}}})
		if err != nil {
			t.Fatal(err)
		}
		return n
	},
}

// sameShape drops sbtest2 and creates it again from dbarena's own
// declaration, as a user who copied its definition would: only its
// identity tells it from the table dbarena created.
func sameShape(t *testing.T, c engine.Conn) {
	t.Helper()
	ctx := context.Background()
	w := oltpWorkload(t, "--tables", "2", "--table-size", "100")
	var decl *schema.Table
	for _, tb := range w.Define().Tables(nil) {
		if tb.Schema.Name == "sbtest2" {
			decl = tb.Schema
		}
	}
	if err := c.Catalog().DropTable(ctx, "sbtest2"); err != nil {
		t.Fatal(err)
	}
	if err := c.Catalog().CreateTable(ctx, decl); err != nil {
		t.Fatal(err)
	}
}

var cleanupTargets = []struct {
	name   string
	target func(t *testing.T) engine.Target
	user   userTable
}{
	{"postgres", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) }, sqlUserTable},
	{"mysql", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.MySQL(t)) }, sqlUserTable},
	{"sqlite", func(t *testing.T) engine.Target { return testdb.SQLite(t) }, sqlUserTable},
	{"mongodb", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Mongo(t)) }, mongoUserTable},
}

// A table the user put in place of one dbarena prepared survives cleanup,
// with its rows, whether its columns differ or are dbarena's own; the
// untouched prepared table beside it is dropped.
func TestCleanupLeavesReplacedTable(t *testing.T) {
	for _, tc := range cleanupTargets {
		for _, shape := range []string{"other", "same"} {
			t.Run("engine="+tc.name+"/columns="+shape, func(t *testing.T) {
				ctx := context.Background()
				eng := enginetest.Open(t, tc.target(t))
				w := oltpWorkload(t, "--tables", "2", "--table-size", "100")
				if _, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
					t.Fatal(err)
				}
				c, err := eng.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if shape == "same" {
					tc.user.same(t, c)
				} else {
					tc.user.replace(t, c)
				}
				// Runs, which write, refuse it as well.
				if err := load.VerifyPrepared(ctx, c, eng.Dialect(), w); !errors.Is(err, load.ErrNotOurs) && !errors.Is(err, load.ErrShape) {
					t.Errorf("VerifyPrepared = %v, want ErrNotOurs or ErrShape", err)
				} else if shape == "same" && !errors.Is(err, load.ErrNotOurs) {
					t.Errorf("VerifyPrepared = %v, want ErrNotOurs: the identity differs", err)
				}

				cleaned, err := load.Cleanup(ctx, eng, w)
				dropped := cleaned.Dropped
				if !errors.Is(err, load.ErrNotOurs) || !strings.Contains(err.Error(), "not dropped: sbtest2 is not the one dbarena created") {
					t.Errorf("Cleanup error = %v, want ErrNotOurs saying sbtest2 is not the one dbarena created", err)
				}
				if len(dropped) != 1 || dropped[0] != "sbtest1" {
					t.Errorf("dropped %v, want [sbtest1]", dropped)
				}
				if n := tc.user.rows(t, c); n != 1 {
					t.Errorf("the user's sbtest2 holds %d of its rows after cleanup, want 1 (-1: dropped)", n)
				}
				if ok, err := c.Catalog().TableExists(ctx, "sbtest1"); err != nil || ok {
					t.Errorf("sbtest1 exists after cleanup (%v)", err)
				}
			})
		}
	}
}

// Cleanup of an untouched prepared target drops every table, and the
// metadata table with them.
func TestCleanupDropsPrepared(t *testing.T) {
	for _, tc := range cleanupTargets {
		t.Run("engine="+tc.name, func(t *testing.T) {
			ctx := context.Background()
			eng := enginetest.Open(t, tc.target(t))
			w := oltpWorkload(t, "--tables", "2", "--table-size", "100")
			if _, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
				t.Fatal(err)
			}
			cleaned, err := load.Cleanup(ctx, eng, w)
			dropped := cleaned.Dropped
			if err != nil || strings.Join(dropped, ",") != "sbtest1,sbtest2" {
				t.Fatalf("Cleanup = %v, %v; want [sbtest1 sbtest2]", dropped, err)
			}
			c, err := eng.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, name := range []string{"sbtest1", "sbtest2", engine.MetaTable} {
				if ok, err := c.Catalog().TableExists(ctx, name); err != nil || ok {
					t.Errorf("%s exists after cleanup (%v)", name, err)
				}
			}
		})
	}
}

// Every engine records the options the data was prepared with, and
// VerifyPrepared refuses a workload whose data options differ, naming
// each; other options (the run's mix) do not count.
func TestVerifyPreparedDataOptions(t *testing.T) {
	for _, tc := range cleanupTargets {
		t.Run("engine="+tc.name, func(t *testing.T) {
			ctx := context.Background()
			eng := enginetest.Open(t, tc.target(t))
			if _, err := load.Prepare(ctx, eng, oltpWorkload(t, "--tables", "2", "--table-size", "100"), load.PrepareConfig{LoadThreads: 2}); err != nil {
				t.Fatal(err)
			}
			c, err := eng.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			same := oltpWorkload(t, "--tables", "2", "--table-size", "100", "--point-selects", "3", "--rand-type", "uniform")
			if err := load.VerifyPrepared(ctx, c, eng.Dialect(), same); err != nil {
				t.Errorf("VerifyPrepared with the prepared data options: %v", err)
			}
			other := oltpWorkload(t, "--tables", "2", "--table-size", "200", "--seed-data", "5")
			err = load.VerifyPrepared(ctx, c, eng.Dialect(), other)
			var oe *workload.OptionError
			if !errors.As(err, &oe) ||
				!strings.Contains(err.Error(), "--table-size 200: does not match the data: prepared with --table-size 100") ||
				!strings.Contains(err.Error(), "--seed-data 5: does not match the data: prepared with --seed-data 0") {
				t.Errorf("VerifyPrepared with other data options = %v", err)
			}
		})
	}
}

// copyTable is how a user copies a table of dbarena's with the engine's
// own means, definition and all, puts a row of their own in the copy and
// swaps it in under the original's name: the copy carries whatever the
// original's definition holds (MySQL's comment, SQLite's CREATE TABLE
// text), so only an identity no copy can carry tells it apart.
var copyTable = map[string]func(t *testing.T, c engine.Conn, name string){
	"postgres": func(t *testing.T, c engine.Conn, name string) {
		sqlExec(t, c,
			"CREATE TABLE "+name+"_user (LIKE "+name+" INCLUDING ALL EXCLUDING DEFAULTS)",
			"INSERT INTO "+name+"_user (id, k, c, pad) VALUES (1, 1, 'mine', '')",
			"DROP TABLE "+name,
			"ALTER TABLE "+name+"_user RENAME TO "+name)
	},
	"mysql": func(t *testing.T, c engine.Conn, name string) {
		sqlExec(t, c,
			"CREATE TABLE "+name+"_user LIKE "+name,
			"INSERT INTO "+name+"_user (id, k, c, pad) VALUES (1, 1, 'mine', '')",
			"DROP TABLE "+name,
			"RENAME TABLE "+name+"_user TO "+name)
	},
	"sqlite": func(t *testing.T, c engine.Conn, name string) {
		sc, err := engine.SQL(c)
		if err != nil {
			t.Fatal(err)
		}
		var ddl string
		if err := sc.QueryRow(context.Background(), "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", []any{name}, &ddl); err != nil {
			t.Fatal(err)
		}
		sqlExec(t, c,
			strings.Replace(ddl, "CREATE TABLE "+name+" ", "CREATE TABLE "+name+"_user ", 1),
			"INSERT INTO "+name+"_user (id, k, c, pad) VALUES (1, 1, 'mine', '')",
			"DROP TABLE "+name,
			"ALTER TABLE "+name+"_user RENAME TO "+name)
	},
	"mongodb": func(t *testing.T, c engine.Conn, name string) {
		ctx := context.Background()
		db := c.(*mongo.Conn).DB()
		// $out writes a new collection; renameCollection keeps the
		// renamed one's UUID.
		cur, err := db.Collection(name).Aggregate(ctx, bson.A{
			bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: int64(1)}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "c", Value: "mine"}}}},
			bson.D{{Key: "$out", Value: name + "_user"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		_ = cur.Close(ctx)
		if err := db.Collection(name).Drop(ctx); err != nil {
			t.Fatal(err)
		}
		err = c.(*mongo.Conn).DB().Client().Database("admin").RunCommand(ctx, bson.D{
			{Key: "renameCollection", Value: db.Name() + "." + name + "_user"},
			{Key: "to", Value: db.Name() + "." + name}}).Err()
		if err != nil {
			t.Fatal(err)
		}
	},
}

// sqlExec runs statements on c.
func sqlExec(t *testing.T, c engine.Conn, stmts ...string) {
	t.Helper()
	sc, err := engine.SQL(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if err := sc.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// A copy of a prepared table, made with the engine's own means and
// swapped in under the table's name, is not dbarena's table: run's check
// that the target is prepared and check refuse it, and cleanup drops the
// untouched table beside it but keeps the copy with the user's row.
func TestCopiedTableIsNotOurs(t *testing.T) {
	for _, tc := range cleanupTargets {
		t.Run("engine="+tc.name, func(t *testing.T) {
			ctx := context.Background()
			eng := enginetest.Open(t, tc.target(t))
			w := oltpWorkload(t, "--tables", "2", "--table-size", "100")
			if _, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
				t.Fatal(err)
			}
			c, err := eng.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			copyTable[tc.name](t, c, "sbtest1")
			if diff, err := c.Catalog().MatchShape(ctx, w.Define().Tables(eng.Dialect())[0].Schema); err != nil || diff != "" {
				t.Fatalf("the copy's shape differs (%q, %v): the test must swap in a table of the same columns", diff, err)
			}

			if err := load.VerifyPrepared(ctx, c, eng.Dialect(), w); !errors.Is(err, load.ErrNotOurs) || !strings.Contains(err.Error(), "sbtest1") {
				t.Errorf("VerifyPrepared (run) = %v, want ErrNotOurs naming sbtest1", err)
			}
			if _, err := load.Check(ctx, eng, w); !errors.Is(err, load.ErrNotOurs) || !strings.Contains(err.Error(), "sbtest1") {
				t.Errorf("Check = %v, want ErrNotOurs naming sbtest1", err)
			}
			cleaned, err := load.Cleanup(ctx, eng, w)
			if !errors.Is(err, load.ErrNotOurs) || !strings.Contains(err.Error(), "not dropped: sbtest1 is not the one dbarena created") {
				t.Errorf("Cleanup error = %v, want ErrNotOurs saying sbtest1 is not the one dbarena created", err)
			}
			if strings.Join(cleaned.Dropped, ",") != "sbtest2" {
				t.Errorf("dropped %v, want [sbtest2]", cleaned.Dropped)
			}
			if n := userRows(t, c, "sbtest1"); n != 1 {
				t.Errorf("the user's sbtest1 holds %d of its rows after cleanup, want 1 (-1: dropped)", n)
			}
		})
	}
}

// userRows counts the rows of table whose c is 'mine', -1 when the table
// is gone.
func userRows(t *testing.T, c engine.Conn, table string) int64 {
	t.Helper()
	ctx := context.Background()
	ok, err := c.Catalog().TableExists(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return -1
	}
	if mc, isMongo := c.(*mongo.Conn); isMongo {
		n, err := mc.DB().Collection(table).CountDocuments(ctx, bson.D{{Key: "c", Value: "mine"}})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	sc, err := engine.SQL(c)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := sc.QueryRow(ctx, "SELECT COUNT(*) FROM "+table+" WHERE c = 'mine'", nil, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A record of an older dbarena holds only the marker it left in the
// table's definition (MySQL, SQLite), which a copy carries too: dbarena
// cannot tell the table from a copy, so run and check refuse it and
// cleanup leaves it, keeping its record until the user drops the table.
func TestMarkerOnlyRecordUnconfirmed(t *testing.T) {
	for _, tc := range cleanupTargets {
		if tc.name != "mysql" && tc.name != "sqlite" {
			continue // their identities have no marker
		}
		t.Run("engine="+tc.name, func(t *testing.T) {
			ctx := context.Background()
			eng := enginetest.Open(t, tc.target(t))
			w := oltpWorkload(t, "--tables", "1", "--table-size", "100")
			if _, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: 1}); err != nil {
				t.Fatal(err)
			}
			c, err := eng.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			cat := c.Catalog()
			rec, ok, err := cat.Meta(ctx, "sbtest1")
			if err != nil || !ok {
				t.Fatalf("Meta = %v, %v", ok, err)
			}
			marker, _, _ := strings.Cut(rec.Identity, " ")
			if !strings.HasPrefix(marker, "dbarena-id:") || marker == rec.Identity {
				t.Fatalf("identity %q: want a marker and more", rec.Identity)
			}
			rec.Identity = marker // as an older dbarena recorded it
			if err := cat.SetMeta(ctx, rec); err != nil {
				t.Fatal(err)
			}

			err = load.VerifyPrepared(ctx, c, eng.Dialect(), w)
			if !errors.Is(err, load.ErrNotOurs) || !strings.Contains(err.Error(), "cannot tell it from a copy") {
				t.Errorf("VerifyPrepared = %v, want ErrNotOurs: cannot tell it from a copy", err)
			}
			cleaned, err := load.Cleanup(ctx, eng, w)
			var nd *load.NotDroppedError
			if !errors.As(err, &nd) || len(nd.Tables) != 1 || !nd.Tables[0].Unconfirmed || !strings.Contains(err.Error(), "drop it yourself") {
				t.Errorf("Cleanup = %v, want sbtest1 not dropped as unconfirmed", err)
			}
			if len(cleaned.Dropped) != 0 {
				t.Errorf("dropped %v", cleaned.Dropped)
			}
			if ok, err := cat.TableExists(ctx, "sbtest1"); err != nil || !ok {
				t.Errorf("sbtest1 is gone after cleanup (%v)", err)
			}
			if _, ok, err := cat.Meta(ctx, "sbtest1"); err != nil || !ok {
				t.Errorf("the record of sbtest1 is gone after cleanup (%v)", err)
			}
			// Dropped by the user: cleanup forgets the record.
			if err := cat.DropTable(ctx, "sbtest1"); err != nil {
				t.Fatal(err)
			}
			if _, err := load.Cleanup(ctx, eng, w); err != nil {
				t.Errorf("Cleanup after the user dropped it: %v", err)
			}
			if ok, err := cat.TableExists(ctx, engine.MetaTable); err != nil || ok {
				t.Errorf("%s is left (%v)", engine.MetaTable, err)
			}
		})
	}
}

// A table dbarena prepared whose shape is no longer the declared one (its
// identity is still the recorded one: an older dbarena's declaration, or
// a column added since) is refused by runs but is dbarena's own: cleanup
// drops it, so that a prepare can follow.
func TestCleanupDropsOursOfAnotherShape(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(t *testing.T) engine.Target
		change func(t *testing.T, c engine.Conn)
	}{
		{"postgres", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) }, func(t *testing.T, c engine.Conn) {
			sc, err := engine.SQL(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := sc.Exec(context.Background(), "ALTER TABLE sbtest2 ADD COLUMN extra INT"); err != nil {
				t.Fatal(err)
			}
		}},
		{"mongodb", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Mongo(t)) }, func(t *testing.T, c engine.Conn) {
			mc, err := mongo.ConnOf(c)
			if err != nil {
				t.Fatal(err)
			}
			// The record an older declaration of sbtest2 left.
			_, err = mc.DB().Collection(engine.MetaTable).UpdateOne(context.Background(), bson.D{{Key: "_id", Value: "sbtest2"}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "columns", Value: []string{"id", "k", "c"}}}}})
			if err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run("engine="+tc.name, func(t *testing.T) {
			ctx := context.Background()
			eng := enginetest.Open(t, tc.target(t))
			w := oltpWorkload(t, "--tables", "2", "--table-size", "100")
			if _, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
				t.Fatal(err)
			}
			c, err := eng.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			tc.change(t, c)
			if err := load.VerifyPrepared(ctx, c, eng.Dialect(), w); !errors.Is(err, load.ErrShape) {
				t.Errorf("VerifyPrepared = %v, want ErrShape", err)
			}
			cleaned, err := load.Cleanup(ctx, eng, w)
			if err != nil || strings.Join(cleaned.Dropped, ",") != "sbtest1,sbtest2" {
				t.Fatalf("Cleanup = %v, %v; want [sbtest1 sbtest2] dropped", cleaned.Dropped, err)
			}
			if ok, err := c.Catalog().TableExists(ctx, "sbtest2"); err != nil || ok {
				t.Errorf("sbtest2 exists after cleanup (%v)", err)
			}
			if _, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
				t.Errorf("prepare after cleanup: %v", err)
			}
		})
	}
}
