// Package procs is the server-side form of the five TPC-C transactions
// (specification v5.11, clauses 2.4–2.8), for dbarena's --mode procedure:
// one round trip per transaction, as HammerDB runs TPC-C.
//
// On PostgreSQL the transactions are PL/pgSQL functions called with
// SELECT; on MySQL and MariaDB they are stored procedures called with CALL,
// each of which runs START TRANSACTION … COMMIT itself and ends with a
// one-row, one-column result set: its status. SQLite has no stored
// procedures: every entry point returns ErrUnsupported for it.
//
// The server objects are named tpcc_new_order, tpcc_payment,
// tpcc_order_status, tpcc_delivery and tpcc_stock_level. Install creates
// them in the connection's current schema (PostgreSQL) or database (MySQL)
// and Uninstall drops them; Prepare prepares the five calls on one
// connection, and the methods of Calls run one transaction each.
//
// Item lists cross the wire as comma-separated decimal text ("12,5077,33"),
// parsed by the server (PostgreSQL: string_to_array(…)::integer[]; MySQL:
// a SUBSTRING_INDEX loop), because statement arguments have no arrays.
//
// # Transactions and errors
//
// Each call is one whole transaction, run in autocommit mode: the caller
// must not have a transaction open. New-Order's unused item (the
// specification's 1% rollback) is not an error: the transaction's work is
// undone on the server (a PL/pgSQL exception block; ROLLBACK in the MySQL
// procedure) and NewOrderTx reports rolledBack = true. Every other
// database error, deadlocks and lock wait timeouts included, undoes the
// whole transaction and reaches the caller with its original SQLSTATE or
// error number (the MySQL procedures ROLLBACK and RESIGNAL), so that
// engine.SQLDialect.Classify sees what a client-side transaction would have
// produced.
//
// # Semantics
//
// The procedures do what the client-mode transactions do, statement for
// statement where the engine allows it:
//
//   - New-Order reads w_tax, reads and increments d_next_o_id under a row
//     lock, reads the customer, inserts orders (o_all_local 1 when every
//     supplying warehouse is the home one) and new_order, then per item in
//     the given order reads the item, locks and updates its stock row
//     (s_quantity - qty when that leaves at least 10, else s_quantity - qty
//   - 91; s_ytd, s_order_cnt, s_remote_cnt) and inserts the order line
//     (ol_amount = qty × i_price, ol_dist_info = s_dist_XX of the district).
//   - Payment adds the amount to w_ytd and d_ytd, picks the customer by id
//     or by last name (ordered by c_first, the row at position ceil(n/2)),
//     updates its balance, year-to-date payment and payment count, and for
//     bad credit (c_credit 'BC') prepends "c_id c_d_id c_w_id d_id w_id
//     amount " to c_data, keeping 500 characters; then inserts the history
//     row (h_data = w_name, four spaces, d_name). The amount is rounded to
//     cents first and written with two decimals in c_data.
//   - Order-Status reads the customer (by id or last name), its newest
//     order and every line of it. It writes nothing.
//   - Delivery, for districts 1 to 10 of one warehouse, deletes the oldest
//     new_order row (skipping a district that has none), sets the order's
//     carrier and its lines' delivery date, and adds the lines' total to
//     the customer's balance (and 1 to c_delivery_cnt).
//   - Stock-Level counts the distinct items of the district's last 20
//     orders whose stock in the warehouse is below a threshold.
//
// The server code returns a status the Go side reads: New-Order 0 or 1
// (rolled back), Order-Status the number of order lines read, Delivery
// the number of districts delivered, Stock-Level its count, Payment 0.
//
// # Concurrency
//
// A Calls belongs to the connection it was prepared on and, like an
// engine.SQLConn, is not safe for concurrent use. Install and Uninstall are
// meant for setup, on a connection no one else uses.
package procs
