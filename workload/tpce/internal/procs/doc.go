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
// PostgreSQL runs them as PL/pgSQL functions, MariaDB as stored
// functions (a function call is one statement, so in autocommit one
// transaction). MySQL lacks what the MariaDB functions use (ordered
// JSON_ARRAYAGG, sequences) and SQLite has no server-side code: Install
// and New return an error wrapping ErrUnsupported for them (Uninstall
// too, for SQLite). Transactions run at the session's isolation level
// (engine.SetIsolation), as client mode's do.
//
// A Client has the methods of txn.Client, with the same inputs, outputs
// and errors: Trade-Order's intended rollback returns the order and an
// error wrapping workload.ErrRollback, an executor without permission
// txn.ErrNoPermission, a missing row txn.ErrNotFound. The transactions
// read and write what the txn package's do (one set-based statement where
// the client loops, in places) and compute their figures in double
// precision in the same order, so that the three modes return the same
// rows and write the same values.
//
// # Wire format
//
// Every function returns what a frame needed and did not find, or its
// output as JSON whose keys are the txn output fields' names in lower
// case, with times in RFC 3339 (UTC): on PostgreSQL as two columns
// (missing, result), on MariaDB as one text prefixed "M" or "R". Parameters are sent with their columns' types (bigint ids,
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
// # Cost
//
// A Trade-Order or Trade-Result is one round trip in procedure mode and
// 5 to 8 in frames mode (BEGIN, the frames, COMMIT), against some 20 to
// 30 statements in client mode.
//
// # Concurrency
//
// A Client belongs to the connection it was made on and, like an
// engine.SQLConn, is not safe for concurrent use. Install and Uninstall
// are meant for setup, on a connection no one else uses.
package procs
