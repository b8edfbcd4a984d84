package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/schema"
)

// catalog is engine.SQLCatalog with foreign keys added the way a restore
// adds them. InnoDB adds a foreign key to a loaded table by copying the
// whole table, once for every key, while foreign_key_checks is on; with
// it off the key is added in place and no row is looked at. So each key
// is first checked by one query for a row that has no referenced row, and
// then added with the session's checks off: the same guarantee as the
// server's own check, without the copies (a TPC-E-like Load Unit's 49
// keys: 13 s copied, 2 s checked and added in place).
type catalog struct {
	engine.SQLCatalog
}

// AddForeignKeys implements engine.Catalog.
func (k catalog) AddForeignKeys(ctx context.Context, t *schema.Table) error {
	if len(t.ForeignKeys) == 0 {
		return nil
	}
	for _, fk := range t.ForeignKeys {
		var row string
		err := k.C.QueryRow(ctx, orphanSQL(t.Name, fk), nil, &row)
		if err == nil {
			return fmt.Errorf("foreign key %s: %s row with (%s) = (%s) has no row in %s", fk.Name, t.Name,
				strings.Join(fk.Columns, ", "), row, fk.Ref)
		}
		if !errors.Is(err, engine.ErrNoRows) {
			return fmt.Errorf("checking foreign key %s: %w", fk.Name, err)
		}
	}
	if err := k.C.Exec(ctx, "SET SESSION foreign_key_checks = 0"); err != nil {
		return err
	}
	// The session goes on serving the load: its checks come back on
	// whatever happens.
	defer func() { _ = k.C.Exec(context.WithoutCancel(ctx), "SET SESSION foreign_key_checks = 1") }()
	return k.SQLCatalog.AddForeignKeys(ctx, t)
}

// orphanSQL selects the key columns, as text, of one row of table whose
// key has no row in the referenced table; a key with a NULL column
// references nothing (MATCH SIMPLE) and is skipped.
func orphanSQL(table string, fk schema.ForeignKey) string {
	q := Dialect{}.QuoteIdent
	var cols, notNull, match []string
	for i, c := range fk.Columns {
		cols = append(cols, "c."+q(c))
		notNull = append(notNull, "c."+q(c)+" IS NOT NULL")
		match = append(match, "p."+q(fk.RefColumns[i])+" = c."+q(c))
	}
	return fmt.Sprintf("SELECT CONCAT_WS(', ', %s) FROM %s c WHERE %s AND NOT EXISTS (SELECT 1 FROM %s p WHERE %s) LIMIT 1",
		strings.Join(cols, ", "), q(table), strings.Join(notNull, " AND "), q(fk.Ref), strings.Join(match, " AND "))
}
