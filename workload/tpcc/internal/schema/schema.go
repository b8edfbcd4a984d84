// Package schema is the TPC-C schema (specification clause 1.3): the nine
// tables with their columns in load order, their keys, the secondary
// indexes and the optional foreign keys, rendered per engine dialect.
package schema

import (
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/engine"
)

// Column is one column of a table.
type Column struct {
	Name  string
	Type  engine.ColType
	Size  int // CHAR/VARCHAR length, DECIMAL precision
	Scale int // DECIMAL scale
	Null  bool
}

// Table is one TPC-C table.
type Table struct {
	Name    string
	Columns []Column
	// PK is the primary key; empty for history, which has none.
	PK []string
}

// ColumnNames lists the table's column names in load order.
func (t Table) ColumnNames() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

func i(name string) Column        { return Column{Name: name, Type: engine.TypeInt} }
func c(name string, n int) Column { return Column{Name: name, Type: engine.TypeChar, Size: n} }
func v(name string, n int) Column { return Column{Name: name, Type: engine.TypeVarchar, Size: n} }
func dec(name string, p, s int) Column {
	return Column{Name: name, Type: engine.TypeDecimal, Size: p, Scale: s}
}
func ts(name string) Column  { return Column{Name: name, Type: engine.TypeTimestamp} }
func null(col Column) Column { col.Null = true; return col }

// Table names.
const (
	Item      = "item"
	Warehouse = "warehouse"
	Stock     = "stock"
	District  = "district"
	Customer  = "customer"
	History   = "history"
	Orders    = "orders"
	NewOrder  = "new_order"
	OrderLine = "order_line"
)

// Tables lists the nine tables in creation order: every table comes after
// the tables its foreign keys reference, so dropping them in reverse order
// never violates a key.
var Tables = []Table{
	{Name: Item, PK: []string{"i_id"}, Columns: []Column{
		i("i_id"), i("i_im_id"), v("i_name", 24), dec("i_price", 5, 2), v("i_data", 50)}},
	{Name: Warehouse, PK: []string{"w_id"}, Columns: []Column{
		i("w_id"), v("w_name", 10), v("w_street_1", 20), v("w_street_2", 20), v("w_city", 20),
		c("w_state", 2), c("w_zip", 9), dec("w_tax", 4, 4), dec("w_ytd", 12, 2)}},
	{Name: Stock, PK: []string{"s_w_id", "s_i_id"}, Columns: []Column{
		i("s_i_id"), i("s_w_id"), i("s_quantity"),
		c("s_dist_01", 24), c("s_dist_02", 24), c("s_dist_03", 24), c("s_dist_04", 24), c("s_dist_05", 24),
		c("s_dist_06", 24), c("s_dist_07", 24), c("s_dist_08", 24), c("s_dist_09", 24), c("s_dist_10", 24),
		i("s_ytd"), i("s_order_cnt"), i("s_remote_cnt"), v("s_data", 50)}},
	{Name: District, PK: []string{"d_w_id", "d_id"}, Columns: []Column{
		i("d_id"), i("d_w_id"), v("d_name", 10), v("d_street_1", 20), v("d_street_2", 20), v("d_city", 20),
		c("d_state", 2), c("d_zip", 9), dec("d_tax", 4, 4), dec("d_ytd", 12, 2), i("d_next_o_id")}},
	{Name: Customer, PK: []string{"c_w_id", "c_d_id", "c_id"}, Columns: []Column{
		i("c_id"), i("c_d_id"), i("c_w_id"), v("c_first", 16), c("c_middle", 2), v("c_last", 16),
		v("c_street_1", 20), v("c_street_2", 20), v("c_city", 20), c("c_state", 2), c("c_zip", 9),
		c("c_phone", 16), ts("c_since"), c("c_credit", 2), dec("c_credit_lim", 12, 2),
		dec("c_discount", 4, 4), dec("c_balance", 12, 2), dec("c_ytd_payment", 12, 2),
		i("c_payment_cnt"), i("c_delivery_cnt"), v("c_data", 500)}},
	{Name: History, Columns: []Column{
		i("h_c_id"), i("h_c_d_id"), i("h_c_w_id"), i("h_d_id"), i("h_w_id"), ts("h_date"),
		dec("h_amount", 6, 2), v("h_data", 24)}},
	{Name: Orders, PK: []string{"o_w_id", "o_d_id", "o_id"}, Columns: []Column{
		i("o_id"), i("o_d_id"), i("o_w_id"), i("o_c_id"), ts("o_entry_d"), null(i("o_carrier_id")),
		i("o_ol_cnt"), i("o_all_local")}},
	{Name: NewOrder, PK: []string{"no_w_id", "no_d_id", "no_o_id"}, Columns: []Column{
		i("no_o_id"), i("no_d_id"), i("no_w_id")}},
	{Name: OrderLine, PK: []string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number"}, Columns: []Column{
		i("ol_o_id"), i("ol_d_id"), i("ol_w_id"), i("ol_number"), i("ol_i_id"), i("ol_supply_w_id"),
		null(ts("ol_delivery_d")), i("ol_quantity"), dec("ol_amount", 6, 2), c("ol_dist_info", 24)}},
}

// Lookup returns the table called name.
func Lookup(name string) (Table, bool) {
	for _, t := range Tables {
		if t.Name == name {
			return t, true
		}
	}
	return Table{}, false
}

// CreateSQL is t's CREATE TABLE statement for dialect d. With pk the
// primary key is a table constraint; without it the key is left for
// PrimaryKeySQL after the load.
func CreateSQL(d engine.SQLDialect, t Table, pk bool) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + t.Name + " (\n")
	for n, col := range t.Columns {
		if n > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  " + col.Name + " " + d.ColumnType(col.Type, col.Size, col.Scale))
		if !col.Null {
			b.WriteString(" NOT NULL")
		}
	}
	if pk && len(t.PK) > 0 {
		b.WriteString(",\n  PRIMARY KEY (" + strings.Join(t.PK, ", ") + ")")
	}
	b.WriteString("\n)")
	return b.String()
}

// Index is a secondary index.
type Index struct {
	Name, Table string
	Columns     []string
}

// Indexes are the secondary indexes a careful implementer adds: customers
// by last name (Payment and Order-Status select 60% of customers by
// (w, d, last) ordered by first) and orders by customer (Order-Status
// reads a customer's newest order).
var Indexes = []Index{
	{Name: "customer_last", Table: Customer, Columns: []string{"c_w_id", "c_d_id", "c_last", "c_first"}},
	{Name: "orders_customer", Table: Orders, Columns: []string{"o_w_id", "o_d_id", "o_c_id", "o_id"}},
}

// IndexSQL is the CREATE INDEX statement of x.
func IndexSQL(x Index) string {
	return fmt.Sprintf("CREATE INDEX %s ON %s (%s)", x.Name, x.Table, strings.Join(x.Columns, ", "))
}

// ForeignKey is one foreign key of the specification's schema.
type ForeignKey struct {
	Name, Table string
	Columns     []string
	Ref         string
	RefColumns  []string
}

// ForeignKeys are the specification's foreign keys (clause 1.3), added
// after the load with --fk.
var ForeignKeys = []ForeignKey{
	{"fk_district_warehouse", District, []string{"d_w_id"}, Warehouse, []string{"w_id"}},
	{"fk_customer_district", Customer, []string{"c_w_id", "c_d_id"}, District, []string{"d_w_id", "d_id"}},
	{"fk_history_customer", History, []string{"h_c_w_id", "h_c_d_id", "h_c_id"}, Customer, []string{"c_w_id", "c_d_id", "c_id"}},
	{"fk_history_district", History, []string{"h_w_id", "h_d_id"}, District, []string{"d_w_id", "d_id"}},
	{"fk_new_order_orders", NewOrder, []string{"no_w_id", "no_d_id", "no_o_id"}, Orders, []string{"o_w_id", "o_d_id", "o_id"}},
	{"fk_orders_customer", Orders, []string{"o_w_id", "o_d_id", "o_c_id"}, Customer, []string{"c_w_id", "c_d_id", "c_id"}},
	{"fk_order_line_orders", OrderLine, []string{"ol_w_id", "ol_d_id", "ol_o_id"}, Orders, []string{"o_w_id", "o_d_id", "o_id"}},
	{"fk_order_line_stock", OrderLine, []string{"ol_supply_w_id", "ol_i_id"}, Stock, []string{"s_w_id", "s_i_id"}},
	{"fk_stock_warehouse", Stock, []string{"s_w_id"}, Warehouse, []string{"w_id"}},
	{"fk_stock_item", Stock, []string{"s_i_id"}, Item, []string{"i_id"}},
}

// ForeignKeySQL is the ALTER TABLE statement that adds k.
func ForeignKeySQL(k ForeignKey) string {
	return fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s)",
		k.Table, k.Name, strings.Join(k.Columns, ", "), k.Ref, strings.Join(k.RefColumns, ", "))
}
