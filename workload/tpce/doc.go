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
// The transactions are not part of this version: Ops is empty, which
// dbarena run refuses before it opens the target, and Install (called by
// the runner before any worker starts) returns ErrNoTransactions.
package tpce
