package all_test

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/schema"
)

// A declared table of every column type matches its declaration once
// created and loaded; a table created again under the same name has
// another identity, and one whose column n has another type is told
// apart by its shape.
func TestIdentityAndShape(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(testing.TB) engine.Target
		// retype makes column n of dk_child hold strings instead of
		// bigints: a table declared so (SQL), or a document with a
		// string n (MongoDB).
		retype func(t *testing.T, c engine.Conn, child *schema.Table)
	}{
		{"postgres", testdb.Postgres, retypeSQL},
		{"mysql", testdb.MySQL, retypeSQL},
		{"sqlite", testdb.SQLite, retypeSQL},
		{"mongodb", testdb.Mongo, func(t *testing.T, c engine.Conn, child *schema.Table) {
			retypeSQL(t, c, child)
			doc := bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: "ten"}}
			if _, err := c.(*mongo.Conn).DB().Collection(child.Name).InsertOne(context.Background(), doc); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run("engine="+tc.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t, testdb.Isolated(t, tc.target(t)))
			c, err := e.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			cat := c.Catalog()
			tables := declared()
			create(t, c, tables)
			ids := map[string]string{}
			for _, tb := range tables {
				if diff, err := cat.MatchShape(ctx, tb); err != nil || diff != "" {
					t.Errorf("%s: MatchShape = %q, %v; want a match", tb.Name, diff, err)
				}
				id, err := cat.Identity(ctx, tb.Name)
				if err != nil || id == "" {
					t.Errorf("%s: Identity = %q, %v", tb.Name, id, err)
				}
				ids[tb.Name] = id
			}
			if ids["dk_parent"] == ids["dk_child"] {
				t.Errorf("two tables share the identity %q", ids["dk_parent"])
			}
			if id, err := cat.Identity(ctx, "dk_none"); err != nil || id != "" {
				t.Errorf("Identity(missing table) = %q, %v; want \"\"", id, err)
			}

			// The same declaration, created again: another identity.
			child := tables[1]
			if err := cat.DropTable(ctx, child.Name); err != nil {
				t.Fatal(err)
			}
			if err := cat.CreateTable(ctx, child); err != nil {
				t.Fatal(err)
			}
			if id, err := cat.Identity(ctx, child.Name); err != nil || id == "" || id == ids[child.Name] {
				t.Errorf("Identity after re-creation = %q, %v; want one other than %q", id, err, ids[child.Name])
			}

			// Same names, one type changed: the shape differs, naming n.
			if err := cat.DropTable(ctx, child.Name); err != nil {
				t.Fatal(err)
			}
			tc.retype(t, c, child)
			diff, err := cat.MatchShape(ctx, child)
			if err != nil || !strings.Contains(diff, "n ") {
				t.Errorf("MatchShape of a retyped table = %q, %v; want a difference naming n", diff, err)
			}
		})
	}
}

// retypeSQL creates dk_child as declared but with n a Varchar column.
func retypeSQL(t *testing.T, c engine.Conn, child *schema.Table) {
	t.Helper()
	other := *child
	other.Columns = append([]schema.Column(nil), child.Columns...)
	for i := range other.Columns {
		if other.Columns[i].Name == "n" {
			other.Columns[i].Type, other.Columns[i].Size = schema.Varchar, 30
		}
	}
	if err := c.Catalog().CreateTable(context.Background(), &other); err != nil {
		t.Fatal(err)
	}
}
