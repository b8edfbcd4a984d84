package mysql

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
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

// Identity implements engine.Catalog: the comment's marker and the
// creation time (Dialect.TableIdentitySQL) and, where the user may read
// it (the PROCESS privilege), InnoDB's id of the table, which no other
// table ever gets (information_schema.INNODB_SYS_TABLES on MariaDB,
// INNODB_TABLES on MySQL 8). Rebuilding the table (OPTIMIZE TABLE, an
// ALTER TABLE that copies it) renews the id.
func (k catalog) Identity(ctx context.Context, name string) (string, error) {
	id, err := k.SQLCatalog.Identity(ctx, name)
	if err != nil || id == "" {
		return id, err
	}
	tid, err := k.innodbTableID(ctx, name)
	if err != nil {
		return "", fmt.Errorf("identifying table %s: %w", name, err)
	}
	if tid != "" {
		id += " " + engine.MakeIdentity("", engine.IdentityField{Name: tableIDField, Value: tid})
	}
	return id, nil
}

// tableIDField is the identity's field of InnoDB's table id.
const tableIDField = "table_id"

// innodbTableID is InnoDB's id of the table name in the current
// database, "" when the server does not let the user read it (or the
// table is no InnoDB table).
func (k catalog) innodbTableID(ctx context.Context, name string) (string, error) {
	for _, view := range []string{"INNODB_SYS_TABLES", "INNODB_TABLES"} {
		var id string
		err := k.C.QueryRow(ctx, "SELECT CAST(table_id AS CHAR) FROM information_schema."+view+" WHERE name = CONCAT(DATABASE(), '/', ?)", []any{name}, &id)
		var myErr *mysql.MySQLError
		switch {
		case err == nil:
			return id, nil
		case errors.Is(err, engine.ErrNoRows):
			return "", nil
		case errors.As(err, &myErr) && (myErr.Number == erSpecificAccessDenied || myErr.Number == erUnknownTable || myErr.Number == erTableAccessDenied):
			// No PROCESS privilege, or the other server's name of the view.
		default:
			return "", err
		}
	}
	return "", nil
}

// SetMeta implements engine.Catalog. A record of a prepared table
// (engine.StateReady) is written only once the second of the table's
// creation time it holds is over on the server's clock: the creation
// time counts whole seconds, and a copy of the table made (or renamed
// into place) later must not get the same.
func (k catalog) SetMeta(ctx context.Context, rec engine.MetaRecord) error {
	if rec.State == engine.StateReady {
		if err := k.outlast(ctx, engine.IdentityValue(rec.Identity, createdField)); err != nil {
			return err
		}
	}
	return k.SQLCatalog.SetMeta(ctx, rec)
}

// outlast waits until the server's clock is past the second created
// (seconds since the epoch), and a little more: a file's time is taken
// from a clock that may lag the one NOW() reads by a few milliseconds.
func (k catalog) outlast(ctx context.Context, created string) error {
	sec, err := strconv.ParseInt(created, 10, 64)
	if err != nil {
		return nil // none recorded: nothing to outlast
	}
	var now float64
	if err := k.C.QueryRow(ctx, "SELECT UNIX_TIMESTAMP(NOW(6))", nil, &now); err != nil {
		return err
	}
	wait := time.Duration((float64(sec+1)-now)*float64(time.Second)) + 50*time.Millisecond
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(min(wait, 2*time.Second))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
