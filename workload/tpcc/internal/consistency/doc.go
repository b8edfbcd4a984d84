// Package consistency checks the twelve consistency conditions of the
// TPC-C specification (revision 5.11, clause 3.3.2) on a TPC-C database,
// through engine.SQLConn, on every engine dbarena supports (PostgreSQL,
// MySQL/MariaDB, SQLite).
//
// # Conditions
//
// A Problem's Detail names warehouses, districts (w, d), orders (w, d, o)
// or customers (w, d, c).
//
//	 1  W_YTD = sum(D_YTD)                              per warehouse
//	 2  D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)      per district; the
//	    NEW-ORDER part only where the district has NEW-ORDER rows
//	 3  max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER)
//	    per district that has NEW-ORDER rows
//	 4  sum(O_OL_CNT) = count(ORDER-LINE)               per district
//	 5  O_CARRIER_ID is null iff the order has a NEW-ORDER row, per order
//	 6  O_OL_CNT = count(ORDER-LINE)                    per order
//	 7  OL_DELIVERY_D is null iff O_CARRIER_ID is null, per order line;
//	    reported per order
//	 8  W_YTD = sum(H_AMOUNT)                           per warehouse (H_W_ID)
//	 9  D_YTD = sum(H_AMOUNT)                           per district (H_W_ID, H_D_ID)
//	10  C_BALANCE = sum(OL_AMOUNT) - sum(H_AMOUNT)      per customer; OL_AMOUNT
//	    of the delivered lines (OL_DELIVERY_D not null) of the customer's
//	    orders, H_AMOUNT of the customer's history (H_C_W_ID, H_C_D_ID, H_C_ID)
//	11  count(ORDER) - count(NEW-ORDER) = 2100          per district
//	12  C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT)      per customer, delivered
//	    lines only
//
// Condition 11 holds on a freshly populated database (3,000 orders per
// district, of which the last 900 are new) and stays true through New-Order
// transactions, which add one row to each table, but every Delivery
// removes NEW-ORDER rows. It is therefore checked only when asked for with
// Options.Fresh, before any Delivery has run.
//
// # Queries
//
// Each condition is one set-based query (grouped aggregates joined to the
// table they are compared with, left joins where a missing group counts as
// zero) that returns only the violating rows; the first few make up the
// Problem's Detail, and a second COUNT(*) query over the same query runs
// only when there are more of them than the Detail shows. The SQL is
// portable: no FULL OUTER JOIN, no FILTER clause, no window functions.
// Money is compared after ROUND(x, 2), since SQLite keeps DECIMAL columns
// as floating point. The queries rely on the primary keys of
// internal/schema and on its orders_customer index. Check of two
// warehouses takes about two seconds on SQLite and less on PostgreSQL and
// MariaDB, most of it in conditions 7, 10 and 12, which read every order
// line; the time grows linearly with the warehouses.
//
// Every condition is a single statement, so each sees one consistent state
// of the database, but different conditions may see different states:
// check when no transactions are running. Check starts no transaction of
// its own and changes nothing.
package consistency
