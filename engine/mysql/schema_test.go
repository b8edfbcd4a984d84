package mysql

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine/internal/schematest"
	"github.com/dbarena/dbarena/schema"
)

func TestRenderSchema(t *testing.T) {
	got := schematest.Render(t, Dialect{}, schematest.NoError(t))
	want := strings.TrimSpace(`
CREATE TABLE sk_parent (
  id INTEGER NOT NULL AUTO_INCREMENT,
  PRIMARY KEY (id)
);
CREATE TABLE sk_child (
  p_id INT NOT NULL,
  n BIGINT NOT NULL,
  price DECIMAL(10, 2) DEFAULT 0 NOT NULL,
  ratio DOUBLE,
  code CHAR(2) DEFAULT 'it''s' NOT NULL,
  name VARCHAR(20) NOT NULL,
  note LONGTEXT,
  at DATETIME(6) NOT NULL,
  ok BOOLEAN DEFAULT TRUE NOT NULL,
  raw LONGBLOB,
  doc JSON NOT NULL,
  small SMALLINT DEFAULT 0 NOT NULL,
  day DATE,
  sk_child_user_k1 VARCHAR(255) AS (JSON_UNQUOTE(JSON_EXTRACT(doc, '$.user.name'))) VIRTUAL,
  sk_child_qty_k1 BIGINT AS (CAST(JSON_UNQUOTE(JSON_EXTRACT(doc, '$.qty')) AS SIGNED)) VIRTUAL,
  PRIMARY KEY (p_id, n),
  CONSTRAINT sk_child_price CHECK (price >= 0)
);
CREATE UNIQUE INDEX sk_child_name ON sk_child (name);
CREATE INDEX sk_child_cov ON sk_child (code, at DESC, price);
CREATE INDEX sk_child_user ON sk_child (sk_child_user_k1);
CREATE INDEX sk_child_qty ON sk_child (sk_child_qty_k1, n);
ALTER TABLE sk_child ADD CONSTRAINT sk_child_parent FOREIGN KEY (p_id) REFERENCES sk_parent (id)
`)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A text path key's Size sizes its generated column, so that several
// such keys fit one index (InnoDB's 3,072 bytes); without one it is 255.
func TestPathKeySize(t *testing.T) {
	tb := &schema.Table{
		Name:       "t",
		Columns:    []schema.Column{{Name: "id", Type: schema.BigInt}, {Name: "doc", Type: schema.JSON}},
		PrimaryKey: []string{"id"},
		Indexes: []schema.Index{{Name: "t_k", Keys: []schema.Key{
			{Column: "doc", Path: []string{"did"}, Size: 64}, schema.Path("doc", "kind"),
		}}},
	}
	got := strings.Join(Dialect{}.CreateTableSQL(tb), "\n")
	for _, want := range []string{
		"t_k_k1 VARCHAR(64) AS (JSON_UNQUOTE(JSON_EXTRACT(doc, '$.did'))) VIRTUAL",
		"t_k_k2 VARCHAR(255) AS (JSON_UNQUOTE(JSON_EXTRACT(doc, '$.kind'))) VIRTUAL",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}
