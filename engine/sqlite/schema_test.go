package sqlite

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/schematest"
	"github.com/dbarena/dbarena/schema"
)

func TestRenderSchema(t *testing.T) {
	got := schematest.Render(t, Dialect{}, func(tb *schema.Table, fks []string, err error) {
		if len(tb.ForeignKeys) > 0 != errors.Is(err, engine.ErrNoForeignKeys) || len(fks) > 0 {
			t.Errorf("ForeignKeySQL(%s) = %q, %v; want ErrNoForeignKeys for a table with foreign keys", tb.Name, fks, err)
		}
	})
	want := strings.TrimSpace(`
CREATE TABLE sk_parent (
  id INTEGER,
  PRIMARY KEY (id)
);
CREATE TABLE sk_child (
  p_id INTEGER NOT NULL,
  n BIGINT NOT NULL,
  price DECIMAL(10, 2) DEFAULT 0 NOT NULL,
  ratio DOUBLE,
  code CHAR(2) DEFAULT 'it''s' NOT NULL,
  name VARCHAR(20) NOT NULL,
  note TEXT,
  at TIMESTAMP NOT NULL,
  ok BOOLEAN DEFAULT TRUE NOT NULL,
  raw BLOB,
  doc TEXT NOT NULL,
  small SMALLINT DEFAULT 0 NOT NULL,
  day DATE,
  PRIMARY KEY (p_id, n),
  CONSTRAINT sk_child_price CHECK (price >= 0)
);
CREATE UNIQUE INDEX sk_child_name ON sk_child (name);
CREATE INDEX sk_child_cov ON sk_child (code, at DESC, price);
CREATE INDEX sk_child_user ON sk_child ((json_extract(doc, '$.user.name')));
CREATE INDEX sk_child_qty ON sk_child ((json_extract(doc, '$.qty')), n)
`)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
