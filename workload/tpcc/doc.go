// Package tpcc is dbarena's TPC-C-like workload, in the style of HammerDB's
// TPROC-C: the specification's nine tables and initial population, its
// five transactions with their input rules, a terminal per worker bound to
// a home warehouse and district, and HammerDB's NOPM read from the
// database itself next to dbarena's own counts.
//
// Results are not TPC-C results: nothing here is audited, and without
// --wait the terminals run back to back, as HammerDB's timed test does.
//
// Execution modes (--mode):
//   - client: dbarena sends the statements. New-Order reads its items in
//     one SELECT … IN, locks the stock rows of each supply warehouse in
//     one SELECT … IN … FOR UPDATE and writes its order lines in one
//     multi-row INSERT; the rest follows the specification statement by
//     statement. With --pipeline (the default) the statements that do not
//     depend on each other's results are sent together, in one round trip
//     on PostgreSQL: New-Order, Payment and Delivery take two, Order-Status
//     and Stock-Level one (one more for a customer chosen by last name).
//     Elsewhere the default sends them one at a time, with the same
//     results, and a --pipeline given explicitly is refused before any
//     work.
//   - procedure: each transaction is one call of a server-side function
//     (PL/pgSQL) or stored procedure (MySQL/MariaDB), installed before the
//     run and dropped by cleanup; refused before any work on an engine
//     without stored procedures (SQLite).
//
// Delivery runs in line, the ten districts in one transaction. The
// transaction mix comes from a shuffled deck of 23 cards per terminal
// (10 New-Order, 10 Payment, 1 each of the others: 43.5/43.5/4.3/4.3/4.3%),
// which meets the specification's minimum percentages.
package tpcc
