// Package oltp is dbarena's sysbench-compatible OLTP suite: the tests of
// sysbench 1.0.20's oltp_*.lua scripts, with the same schema, initial
// data, statements, statement order, option names and defaults, so that
// dbarena numbers compare with published sysbench results.
//
// Registered tests (one workload.Meta each, one shared implementation):
//
//	oltp_point_select      1 point select per event, autocommit
//	oltp_read_only         BEGIN, 10 point selects, 4 range selects, COMMIT
//	oltp_read_write        oltp_read_only's selects, 2 updates, delete+insert
//	oltp_write_only        2 updates, delete+insert in a transaction
//	oltp_update_index      UPDATE … SET k=k+1, autocommit
//	oltp_update_non_index  UPDATE … SET c=?, autocommit
//	oltp_insert            1 INSERT, autocommit
//	oltp_delete            1 DELETE, autocommit
//	oltp_read_write_pct    1 point select or 1 index update per event
//
// # Tables and data
//
// Tables sbtest1..N (--tables) hold --table-size rows each: id (primary
// key, auto-increment with --auto-inc), k INTEGER, c CHAR(120) and pad
// CHAR(60). Rows are a pure function of (--seed-data, table, batch of
// 10,000 ids): k follows --rand-type over [1, table-size] as in sysbench's
// prepare, c and pad are groups of 11 random digits joined by '-'. The
// secondary index k_N is created after loading (--create-secondary).
//
// # Events
//
// Each event issues exactly sysbench's statements in sysbench's order; each
// statement group (the point selects, each kind of range select, the index
// updates, …) runs on one table picked uniformly for that group. Ids are
// drawn from --rand-type, whose default in sysbench 1.0.x is "special"
// (75% of draws in 1% of the ids, --rand-spec-res/--rand-spec-pct). The
// worker counts statements in workload.Queries as sysbench does: SELECTs
// are reads, INSERT/UPDATE/DELETE writes, BEGIN/COMMIT/ROLLBACK other; with
// defaults an oltp_read_write event is 14 reads, 4 writes and 2 other.
//
// oltp_read_write_pct follows KubeBlocks' script of that name as its
// report describes it (the script itself was not available): each event is
// one point select (with probability --read-percent) or one index update
// (--write-percent), reported as the ops "point_select" and
// "update_index"; like the other transactional tests it runs inside
// BEGIN … COMMIT unless --skip-trx.
//
// # MongoDB
//
// The implementation for MongoDB is package workload/oltp/mongo,
// registered for engine.FamilyMongo under every test's name: this package
// holds what every family shares (options, data generator, the event
// source Events, the row-count rules and value templates of the checks)
// and the SQL statements, and imports no engine implementation or driver.
//
// On MongoDB each table is a collection of documents {_id, k, c, pad}: one
// document per row, the row's id as _id, from the same generator, with the
// index k_N on k built after the load. This is the referenced, one-to-one
// model: nothing is embedded, so every statement touches the same data it
// touches on the SQL engines. Each statement is one operation: findOne by
// _id projecting c (point select); find on an _id range projecting c,
// sorted by c for the ordered range (simple and order ranges); aggregate
// with $match and $group for SUM(k), and $group plus $sort for DISTINCT c;
// updateOne with $inc on k or $set on c; deleteOne and insertOne. BEGIN …
// COMMIT becomes a transaction on the worker's session (snapshot
// isolation; a write conflict aborts it and the event is restarted and
// counted as a retry, as a deadlock is on the SQL engines). Statements are
// counted as on the SQL engines, so reads, writes and queries per second
// compare one to one. With --auto-inc, oltp_insert leaves the _id to the
// server (an ObjectId). The consistency check runs the same invariants as
// aggregations.
//
// # Errors
//
// A worker rolls back a failed transaction and returns the error. Like
// sysbench's drivers, the workload restarts events on duplicate-key errors
// as well as on deadlocks and serialization failures (Spec.Retryable).
package oltp
