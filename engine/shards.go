package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/engine/internal/statsutil"
	"github.com/dbarena/dbarena/schema"
)

// The tables (collections) of sharded runs, next to MetaTable: every
// shard of a run registers at its barriers in ShardTable, and stores its
// result file in ResultTable when it ends, so that the shards need no
// disk in common. cleanup drops both.
const (
	ShardTable  = "dbarena_shards"
	ResultTable = "dbarena_results"
)

// ShardRecord is one shard's record in ShardTable or ResultTable, keyed
// by (Run, Phase, Shard).
type ShardRecord struct {
	// Run is the sharded run's id (--run-id), which all its shards share.
	Run string
	// Phase is what the record is for: the barrier's name in ShardTable
	// ("run", "prepare loaded" …), the result's in ResultTable.
	Phase string
	// Shard is the writer's index, Count the run's number of shards.
	Shard, Count int
	// At is when the record was written, on the server's clock as the
	// writer estimates it.
	At time.Time
	// Body is what the writer says: its registration (JSON) at a
	// barrier, its result file in ResultTable.
	Body string
}

// ErrShardTable is a table name that is neither ShardTable nor
// ResultTable.
var ErrShardTable = errors.New("not a table of sharded runs")

func shardTable(table string) error {
	if table != ShardTable && table != ResultTable {
		return fmt.Errorf("%w: %s", ErrShardTable, table)
	}
	return nil
}

// ServerTime implements Catalog through the dialect's ClockSQL.
func (s SQLCatalog) ServerTime(ctx context.Context) (time.Time, error) {
	var us int64
	if err := s.C.QueryRow(ctx, s.C.Dialect().ClockSQL(), nil, &us); err != nil {
		return time.Time{}, fmt.Errorf("reading the server's clock: %w", err)
	}
	return time.UnixMicro(us), nil
}

// ensureShardTable creates table when needed.
func (s SQLCatalog) ensureShardTable(ctx context.Context, table string) error {
	if err := shardTable(table); err != nil {
		return err
	}
	d := s.C.Dialect()
	typ := func(t schema.Type, n int) string { return d.ColumnType(schema.Column{Type: t, Size: n}) }
	v := typ(schema.Varchar, 128)
	if err := s.C.Exec(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (run_id %s NOT NULL, phase %s NOT NULL, shard %s NOT NULL, shards %s NOT NULL, written_us %s NOT NULL, body %s NOT NULL, PRIMARY KEY (run_id, phase, shard))",
		table, v, v, typ(schema.Int, 0), typ(schema.Int, 0), typ(schema.BigInt, 0), typ(schema.Text, 0))); err != nil {
		// Shards create it at once: PostgreSQL's IF NOT EXISTS loses
		// that race with a unique violation of its catalogue.
		if ok, xerr := s.TableExists(ctx, table); xerr == nil && ok {
			return nil
		}
		return fmt.Errorf("creating %s: %w", table, err)
	}
	return nil
}

// again runs write until it succeeds, ctx ends or it fails other than
// by a deadlock or serialization failure: shards write their records
// at once (InnoDB's gap locks make concurrent inserts deadlock).
func (s SQLCatalog) again(ctx context.Context, write func() error) error {
	for try := 1; ; try++ {
		err := write()
		if err == nil || try == 20 || ctx.Err() != nil {
			return err
		}
		if c := s.C.Dialect().Classify(err); c != ClassDeadlock && c != ClassSerialization {
			return err
		}
		t := time.NewTimer(time.Duration(try) * 10 * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
	}
}

func shardRow(rec ShardRecord) []any {
	return []any{rec.Run, rec.Phase, rec.Shard, rec.Count, rec.At.UnixMicro(), rec.Body}
}

// AddShardRecord implements Catalog: an INSERT, which the primary key
// refuses when the record is there.
func (s SQLCatalog) AddShardRecord(ctx context.Context, table string, rec ShardRecord) (bool, error) {
	if err := s.ensureShardTable(ctx, table); err != nil {
		return false, err
	}
	ins, err := s.C.Prepare(ctx, "INSERT INTO "+table+" (run_id, phase, shard, shards, written_us, body) VALUES (?, ?, ?, ?, ?, ?)")
	if err != nil {
		return false, err
	}
	if err = s.again(ctx, func() error { _, err := ins.Exec(ctx, shardRow(rec)...); return err }); err == nil {
		return true, nil
	}
	if s.C.Dialect().Classify(err) == ClassUniqueViolation {
		return false, nil
	}
	if recs, rerr := s.ShardRecords(ctx, table, rec.Run, rec.Phase); rerr == nil {
		for _, r := range recs {
			if r.Shard == rec.Shard {
				return false, nil
			}
		}
	}
	return false, fmt.Errorf("recording shard %d of run %s in %s: %w", rec.Shard, rec.Run, table, err)
}

// PutShardRecord implements Catalog: a DELETE and an INSERT in one
// transaction.
func (s SQLCatalog) PutShardRecord(ctx context.Context, table string, rec ShardRecord) error {
	if err := s.ensureShardTable(ctx, table); err != nil {
		return err
	}
	return s.again(ctx, func() error { return s.putShardRecord(ctx, table, rec) })
}

func (s SQLCatalog) putShardRecord(ctx context.Context, table string, rec ShardRecord) error {
	if err := s.C.Begin(ctx); err != nil {
		return err
	}
	err := func() error {
		del, err := s.C.Prepare(ctx, "DELETE FROM "+table+" WHERE run_id = ? AND phase = ? AND shard = ?")
		if err != nil {
			return err
		}
		if _, err := del.Exec(ctx, rec.Run, rec.Phase, rec.Shard); err != nil {
			return err
		}
		ins, err := s.C.Prepare(ctx, "INSERT INTO "+table+" (run_id, phase, shard, shards, written_us, body) VALUES (?, ?, ?, ?, ?, ?)")
		if err != nil {
			return err
		}
		_, err = ins.Exec(ctx, shardRow(rec)...)
		return err
	}()
	if err != nil {
		_ = s.C.Rollback(ctx)
		return fmt.Errorf("recording shard %d of run %s in %s: %w", rec.Shard, rec.Run, table, err)
	}
	if err := s.C.Commit(ctx); err != nil {
		return fmt.Errorf("recording shard %d of run %s in %s: %w", rec.Shard, rec.Run, table, err)
	}
	return nil
}

// ShardRecords implements Catalog.
func (s SQLCatalog) ShardRecords(ctx context.Context, table, run, phase string) ([]ShardRecord, error) {
	if err := shardTable(table); err != nil {
		return nil, err
	}
	if ok, err := s.TableExists(ctx, table); err != nil || !ok {
		return nil, err
	}
	q := "SELECT run_id, phase, shard, shards, written_us, body FROM " + table + " WHERE 1 = 1"
	var args []any
	if run != "" {
		q += " AND run_id = ?"
		args = append(args, run)
	}
	if phase != "" {
		q += " AND phase = ?"
		args = append(args, phase)
	}
	var out []ShardRecord
	err := s.C.QueryRows(ctx, q+" ORDER BY run_id, phase, shard", args, func(row []any) error {
		var n [3]int64
		for i := range n {
			v, ok := statsutil.Int64(row[2+i])
			if !ok {
				return fmt.Errorf("%s: %v (%T) is no integer", table, row[2+i], row[2+i])
			}
			n[i] = v
		}
		rec := ShardRecord{Run: asString(row[0]), Phase: asString(row[1]), Shard: int(n[0]), Count: int(n[1]),
			At: time.UnixMicro(n[2]), Body: asString(row[5])}
		out = append(out, rec)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", table, err)
	}
	return out, nil
}

// DeleteShardRecords implements Catalog.
func (s SQLCatalog) DeleteShardRecords(ctx context.Context, table, run string) (int, error) {
	if err := shardTable(table); err != nil {
		return 0, err
	}
	if ok, err := s.TableExists(ctx, table); err != nil || !ok {
		return 0, err
	}
	q, args := "DELETE FROM "+table, []any(nil)
	if run != "" {
		q, args = q+" WHERE run_id = ?", []any{run}
	}
	del, err := s.C.Prepare(ctx, q)
	if err != nil {
		return 0, err
	}
	n, err := del.Exec(ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("deleting from %s: %w", table, err)
	}
	var left int64
	if err := s.C.QueryRow(ctx, "SELECT COUNT(*) FROM "+table, nil, &left); err != nil {
		return int(n), err
	}
	if left == 0 {
		if err := s.C.Exec(ctx, "DROP TABLE "+table); err != nil {
			return int(n), fmt.Errorf("dropping %s: %w", table, err)
		}
	}
	return int(n), nil
}

func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
