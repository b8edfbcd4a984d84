// Package tpce is dbarena's TPC-E-like brokerage workload: the
// specification's 33 tables with their table and column names, customers
// in Load Units of 1,000 (each with its 500 companies, 685 securities and
// 10 brokers), and the initial trades of --itd trading days simulated in
// time order, so that the database is consistent by construction.
//
// The data comes from dbarena's own generator (package internal/gen): no
// TPC EGen code or input files, so values are plausible but not EGen's,
// and results are not comparable to published TPC-E results. Every value
// is a pure function of (--seed-data, table, Load Unit): batch b of every
// table that grows with the customers is Load Unit b, and Load Units load
// in parallel and in any order.
//
// `dbarena check tpce` verifies the row counts the population fixes and
// the rules that tie the trades to their settlement, history, cash
// transactions, holdings and brokers (package internal/check).
//
// `dbarena run tpce` runs the specification's ten transactions. Each
// worker is a customer emulator (package internal/ce: a shuffled
// 890-card deck, so the mix is exact every 890 transactions, and the
// specification's input distributions) with a market exchange emulator
// of its own (package internal/mee; --mee shared puts one behind a lock
// for every worker, as DBT-5's); the emulators and the customer
// emulators' environment belong to the Run that Open returns, so every
// run starts them afresh. Next runs, in this order:
// Data-Maintenance when its minute has come (worker 0 only, every
// DataMaintenanceInterval); the market's work that is due, a Trade-Result
// or a Market-Feed of 20 ticker entries (never dealt from the deck);
// else the deck's next card. A committed Trade-Order goes to the market;
// the trades a Market-Feed submits go back to it. Trade-Cleanup runs once
// in Install, before the workers start, after the trade id sequence is
// created. Each transaction runs at DBT-5's isolation level where the
// engine has levels; serialization failures and deadlocks are replayed
// with the same input by the runner's retry policy, and Trade-Order's
// intended rollbacks return workload.ErrRollback. On PostgreSQL,
// Trade-Result updates its broker after SET LOCAL enable_seqscan = off
// (engine.Capabilities.PreferIndexScans), in every mode: the broker table is a page or
// two, which the planner would scan whole, and at serializable isolation
// that predicate-locks every broker, so that concurrent Trade-Results of
// different brokers fail each other (DBT-5 fills the table to 10 % for
// the same reason). Work still pending in
// an emulator when the run ends is dropped (its trades stay submitted or
// pending until the next run's Trade-Cleanup).
//
// The executor of each mode is built in one place (newExecutor): --mode
// client is package internal/txn (prepared statements, with --pipeline
// the independent statements in one round trip, on engines that pipeline
// only: Spec.Supports refuses it elsewhere); procedure and frames
// are package internal/procs (PL/pgSQL on PostgreSQL, stored functions
// on MariaDB: one call per transaction, or one per frame with dbarena
// doing the arithmetic between frames, as DBT-5 does; refused by
// Spec.Supports on an engine without stored procedures), installed by
// Install and dropped, both modes', by Uninstall. The headline
// metric is TR/s; the specification's validity figures are reported
// with a limit and pass, not enforced (see metrics.go).
package tpce
