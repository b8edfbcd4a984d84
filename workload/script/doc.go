// Package script is the workload "script": pgbench scripts, run as
// pgbench runs them, on every SQL engine. The language is package
// workload/script/lang; this package picks a script per transaction and
// runs its commands through an engine.SQLConn.
//
// # Options
//
//	--file path[@weight]      a script file (repeatable; weight 1 by default)
//	--builtin name[@weight]   tpcb-like, simple-update or select-only
//	-D, --define name=value   a variable every client starts with
//	--protocol simple|extended|prepared
//	--scale N                 :scale (default 1)
//	--random-seed N           :random_seed; :default_seed derives from it
//	--allow-shell             allow \shell and \setshell
//	--init pgbench            pgbench's four tables are the workload's
//
// Every script is one operation (Spec.Ops), named by its file's base name or
// its built-in name; a transaction draws one by weight from the client's
// generator, as pgbench does. Without --file or --builtin the script is
// tpcb-like, as pgbench's default. The built-in scripts are pgbench's
// text, on pgbench's four tables.
//
// Without --init a script's tables are its own: Spec.Tables gives none, and
// prepare, check and cleanup have nothing to do. With --init pgbench the
// workload declares pgbench's tables as pgbench -i creates them (columns,
// types, NULLs, primary keys; aid a bigint from scale 20,000), their rows
// are pgbench -i's at --scale (--init and --scale define the data), and
// Spec.Check verifies the tpcb invariant: the sums of the accounts', tellers'
// and branches' balances equal the history's deltas, and the accounts,
// tellers and branches number 100,000, 10 and 1 per unit of scale.
//
// # Clients
//
// Each worker is a client with its own variables: the -D ones, then
// :client_id (the worker's number from 0), :scale, :random_seed and
// :default_seed. Its random generator is seeded from the run's seed and
// its number (workload.WorkerEnv.Seed), so a run's draws are
// reproducible.
//
// A command that only begins, commits or rolls back a transaction
// (BEGIN, START TRANSACTION, COMMIT, END, ROLLBACK, ABORT, with WORK or
// TRANSACTION) is the engine's Begin, Commit or Rollback: SQLite's BEGIN
// IMMEDIATE, which lets concurrent clients write without deadlocking,
// MariaDB's COMMIT for PostgreSQL's END, and on PostgreSQL a COMMIT the
// server answers with ROLLBACK fails the transaction. Other SQL commands
// go by --protocol: simple writes each variable's text into
// the query (also inside quoted strings, as pgbench) and sends it
// through SQLConn.Exec; extended binds the variables as parameters
// (SQLConn.QueryRows); prepared prepares each query on first use
// (SQLConn.Prepare) and binds them. A parameter is the variable's value
// typed (integer, double, boolean, NULL) when its text reads as one, its
// text otherwise. (pgbench binds every parameter as text; PostgreSQL's
// driver encodes prepared statements' integers in binary, from typed
// values only. So a variable that reads as a number cannot be bound to a
// text column on PostgreSQL under extended or prepared: write it ':x',
// in quotes, under --protocol simple.) A ? in a query is taken for a
// placeholder under extended and prepared, by the engines' rebinding
// (PostgreSQL's jsonb ? operator needs --protocol simple). Queries are counted as reads, writes or other by their
// first word. \set evaluates its expression, \if/\elif/\else/\endif pick
// a branch by pgbench's truth of values, \sleep waits (inside the
// transaction's latency, as pgbench's) and debug() writes to standard
// error. An SQL command ending in \gset or \aset stores its result in
// variables as pgbench does, through engine.TextQuerier (every SQL
// engine's connections): each column becomes the variable named by the
// prefix and the column's name (which must be a valid variable name),
// holding the value's text (a NULL is the empty text, as libpq gives it
// to pgbench). \gset takes the one row of the command's last query and
// fails the command when that query returns no row or several; \aset
// takes every query's rows, the last row winning, and a query without
// rows sets nothing; when a later query of the command fails, the
// values of those before it stay set, as pgbench stores each result as
// it reads it. Under --protocol simple a compound command (\;) is
// sent as one simple query where the engine returns each query's rows
// (engine.TextQuerier.MultiResults: PostgreSQL, where the compound is
// one implicit transaction), its queries one by one elsewhere; under
// extended and prepared the query's parameters are bound (the engines'
// statement caches prepare it). With --allow-shell, \shell runs its
// words joined by spaces through /bin/sh (a :name word is the variable's
// text, a ::word loses one colon) and fails when the command does;
// \setshell stores the command's output, which must be an integer.
//
// A failed command fails its transaction with a *CommandError naming
// the script, the command and its position, wrapping the cause (a
// database error stays classifiable); the worker rolls back whatever the
// script left open. A serialization failure or deadlock is replayed
// (workload.Replayer) from the generator's state at the transaction's
// start, so the replay draws the same values, as pgbench's retries.
//
// # Per-command statistics
//
// Every script's commands are its op's steps (workload.Op.Steps),
// named "command N (line L)" with N counted from 0 and their first line
// as text: the worker records each command it runs, with its latency
// (from the previous command's end, one clock read per command; a
// \sleep's wait included), or its failure, through WorkerEnv.Steps,
// so the result file and the summary have pgbench -r's per-command
// latencies and failures (a failure of a retried transaction counts
// among the command's retries). A command a branch passes over is not
// run, so not counted; the commands of a transaction that fails later
// keep their latencies, as pgbench's.
//
// # Pipelines
//
// \startpipeline … \endpipeline run as pgbench's, on engines whose
// connections send statements together (engine.Batcher: PostgreSQL):
// the SQL commands in between are queued, each as its prepared
// statement (prepared on first use, before the pipeline is sent) with
// its parameters bound when it is queued, and \endpipeline sends them
// in one engine.Batch, one round trip. \syncpipeline queues a sync
// point (engine.Batch.Sync): the round trip carries a Sync there and one
// at the end, as pgbench's PQsendPipelineSync does, so a sync point ends
// an implicit transaction where pgbench's does. Meta-commands (\set,
// \sleep, \if) run as they come. A statement that fails fails the
// transaction with its own command's error; the server skips the rest of
// its segment, up to the next sync point, and runs the segments after
// it, as pgbench's server does. Without BEGIN the statements up to a sync
// are one implicit transaction, taken back together. Spec.Validate
// refuses a pipeline under --protocol simple (pgbench refuses it at run
// time) and \gset or \aset inside one (their rows are not read before
// the pipeline ends); Spec.Supports refuses, before any work, a script
// with a pipeline on an engine without pipelines (engine.Capabilities:
// every engine but PostgreSQL) and one with \gset or \aset on an engine
// without text results, naming the --file or --builtin that gave it and
// where the command is. A branch
// of an \if that opens a pipeline twice, ends one that is not open or
// leaves one open at the script's end fails the transaction, as
// pgbench's does. Behind
// exec modes other than cache_statement (PgBouncer) the PostgreSQL
// engine runs a batch one statement after the other. In the per-command
// statistics a queued command's latency is its queueing, and the round
// trip and a failed statement are \endpipeline's, as in pgbench -r.
package script
