// Package procs runs the TPC-E-like workload's transactions as
// server-side code, for the workload's --mode procedure and --mode frames:
//
//   - Procedure: one server function per transaction, called in
//     autocommit, one round trip per transaction (Market-Feed: one per
//     ticker entry, each its own transaction as in client mode).
//   - Frames: one server function per frame of the specification, as the
//     DBT-5 kit runs them: the client begins the transaction, calls the
//     frames, does the arithmetic between them (commissions, settlement,
//     the due date) and commits, or rolls back. The transactions of one
//     frame (Broker-Volume, Market-Watch, Security-Detail, Trade-Lookup,
//     Trade-Status, Trade-Update, Market-Feed, Trade-Cleanup,
//     Data-Maintenance) call the same function as in procedure mode,
//     between BEGIN and COMMIT.
//
// PostgreSQL runs them as PL/pgSQL functions; MySQL/MariaDB stored
// procedures are not written yet, and SQLite has no server-side code:
// Install, Uninstall and New return an error wrapping ErrUnsupported for
// them.
//
// A Client has the methods of txn.Client, with the same inputs, outputs
// and errors: Trade-Order's intended rollback returns the order and an
// error wrapping workload.ErrRollback, an executor without permission
// txn.ErrNoPermission, a missing row txn.ErrNotFound. The transactions do
// what the txn package's do, statement for statement, and compute their
// figures in double precision in the same order, so that the three modes
// return the same rows and write the same values.
//
// # Wire format
//
// Every function returns one row of two columns: missing (the row a frame
// needed and did not find, or NULL) and result, the output as JSON whose
// keys are the txn output fields' names in lower case, with times in RFC
// 3339 (UTC). Parameters are sent with their columns' types (bigint ids,
// varchar symbols, numeric prices, timestamp and date times) except two
// lists that statement arguments cannot carry: Broker-Volume's broker
// names (a JSON array) and Trade-Lookup's and Trade-Update's trade ids
// (comma-separated text). A transaction function that finds a row
// missing after it has written raises an exception, which fails the call
// and undoes the transaction.
//
// # Server objects
//
// Install creates the functions of one mode (Names lists every one, all
// prefixed tpce_) in the connection's current schema, replacing dbarena's
// earlier versions of them, in one transaction; Uninstall drops those
// names and nothing else. Trade-Order takes new trade ids from the
// sequence txn.Install creates.
//
// # Concurrency
//
// A Client belongs to the connection it was made on and, like an
// engine.SQLConn, is not safe for concurrent use. Install and Uninstall
// are meant for setup, on a connection no one else uses.
package procs
