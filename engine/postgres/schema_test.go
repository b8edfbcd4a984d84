package postgres

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine/internal/schematest"
)

func TestRenderSchema(t *testing.T) {
	got := schematest.Render(t, Dialect{}, schematest.NoError(t))
	want := strings.TrimSpace(`
CREATE TABLE sk_parent (
  id SERIAL
);
ALTER TABLE "sk_parent" ADD PRIMARY KEY ("id");
SELECT setval(pg_get_serial_sequence('sk_parent', 'id'), (SELECT COALESCE(MAX("id"), 0) + 1 FROM "sk_parent"), false);
ANALYZE sk_parent;
CREATE TABLE sk_child (
  p_id INTEGER NOT NULL,
  n BIGINT NOT NULL,
  price NUMERIC(10, 2) DEFAULT 0 NOT NULL,
  ratio DOUBLE PRECISION,
  code CHAR(2) DEFAULT 'it''s' NOT NULL,
  name VARCHAR(20) NOT NULL,
  note TEXT,
  at TIMESTAMP NOT NULL,
  ok BOOLEAN DEFAULT TRUE NOT NULL,
  raw BYTEA,
  doc JSONB NOT NULL,
  small SMALLINT DEFAULT 0 NOT NULL,
  day DATE,
  CONSTRAINT sk_child_price CHECK (price >= 0)
);
ALTER TABLE "sk_child" ADD PRIMARY KEY ("p_id", "n");
CREATE UNIQUE INDEX sk_child_name ON sk_child (name);
CREATE INDEX sk_child_cov ON sk_child (code, at DESC) INCLUDE (price);
CREATE INDEX sk_child_user ON sk_child ((doc->'user'->>'name'));
CREATE INDEX sk_child_qty ON sk_child (((doc->>'qty')::bigint), n);
ANALYZE sk_child;
ALTER TABLE sk_child ADD CONSTRAINT sk_child_parent FOREIGN KEY (p_id) REFERENCES sk_parent (id)
`)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
