// Package schema is the TPC-C schema (specification clause 1.3), declared
// with package schema: the nine tables with their columns in load
// order, their keys, the secondary indexes and the optional foreign keys.
// Each engine renders it.
package schema

import "github.com/dbarena/dbarena/schema"

// Column is one column of a table.
type Column = schema.Column

// Table is one TPC-C table.
type Table = schema.Table

func i(name string) Column        { return Column{Name: name, Type: schema.Int} }
func c(name string, n int) Column { return Column{Name: name, Type: schema.Char, Size: n} }
func v(name string, n int) Column { return Column{Name: name, Type: schema.Varchar, Size: n} }
func dec(name string, p, s int) Column {
	return Column{Name: name, Type: schema.Decimal, Size: p, Scale: s}
}
func ts(name string) Column  { return Column{Name: name, Type: schema.Timestamp} }
func null(col Column) Column { col.Null = true; return col }

func keys(cols ...string) []schema.Key {
	out := make([]schema.Key, len(cols))
	for n, c := range cols {
		out[n] = schema.Col(c)
	}
	return out
}

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
// never violates a key. They carry their primary keys and the secondary
// indexes a careful implementer adds: customers by last name (Payment and
// Order-Status select 60% of customers by (w, d, last) ordered by first)
// and orders by customer (Order-Status reads a customer's newest order).
// Their foreign keys are in ForeignKeys; Declared adds them.
var Tables = []*Table{
	{Name: Item, PrimaryKey: []string{"i_id"}, Columns: []Column{
		i("i_id"), i("i_im_id"), v("i_name", 24), dec("i_price", 5, 2), v("i_data", 50)}},
	{Name: Warehouse, PrimaryKey: []string{"w_id"}, Columns: []Column{
		i("w_id"), v("w_name", 10), v("w_street_1", 20), v("w_street_2", 20), v("w_city", 20),
		c("w_state", 2), c("w_zip", 9), dec("w_tax", 4, 4), dec("w_ytd", 12, 2)}},
	{Name: Stock, PrimaryKey: []string{"s_w_id", "s_i_id"}, Columns: []Column{
		i("s_i_id"), i("s_w_id"), i("s_quantity"),
		c("s_dist_01", 24), c("s_dist_02", 24), c("s_dist_03", 24), c("s_dist_04", 24), c("s_dist_05", 24),
		c("s_dist_06", 24), c("s_dist_07", 24), c("s_dist_08", 24), c("s_dist_09", 24), c("s_dist_10", 24),
		i("s_ytd"), i("s_order_cnt"), i("s_remote_cnt"), v("s_data", 50)}},
	{Name: District, PrimaryKey: []string{"d_w_id", "d_id"}, Columns: []Column{
		i("d_id"), i("d_w_id"), v("d_name", 10), v("d_street_1", 20), v("d_street_2", 20), v("d_city", 20),
		c("d_state", 2), c("d_zip", 9), dec("d_tax", 4, 4), dec("d_ytd", 12, 2), i("d_next_o_id")}},
	{Name: Customer, PrimaryKey: []string{"c_w_id", "c_d_id", "c_id"}, Columns: []Column{
		i("c_id"), i("c_d_id"), i("c_w_id"), v("c_first", 16), c("c_middle", 2), v("c_last", 16),
		v("c_street_1", 20), v("c_street_2", 20), v("c_city", 20), c("c_state", 2), c("c_zip", 9),
		c("c_phone", 16), ts("c_since"), c("c_credit", 2), dec("c_credit_lim", 12, 2),
		dec("c_discount", 4, 4), dec("c_balance", 12, 2), dec("c_ytd_payment", 12, 2),
		i("c_payment_cnt"), i("c_delivery_cnt"), v("c_data", 500)},
		Indexes: []schema.Index{{Name: "customer_last", Keys: keys("c_w_id", "c_d_id", "c_last", "c_first")}}},
	{Name: History, Columns: []Column{
		i("h_c_id"), i("h_c_d_id"), i("h_c_w_id"), i("h_d_id"), i("h_w_id"), ts("h_date"),
		dec("h_amount", 6, 2), v("h_data", 24)}},
	{Name: Orders, PrimaryKey: []string{"o_w_id", "o_d_id", "o_id"}, Columns: []Column{
		i("o_id"), i("o_d_id"), i("o_w_id"), i("o_c_id"), ts("o_entry_d"), null(i("o_carrier_id")),
		i("o_ol_cnt"), i("o_all_local")},
		Indexes: []schema.Index{{Name: "orders_customer", Keys: keys("o_w_id", "o_d_id", "o_c_id", "o_id")}}},
	{Name: NewOrder, PrimaryKey: []string{"no_w_id", "no_d_id", "no_o_id"}, Columns: []Column{
		i("no_o_id"), i("no_d_id"), i("no_w_id")}},
	{Name: OrderLine, PrimaryKey: []string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number"}, Columns: []Column{
		i("ol_o_id"), i("ol_d_id"), i("ol_w_id"), i("ol_number"), i("ol_i_id"), i("ol_supply_w_id"),
		null(ts("ol_delivery_d")), i("ol_quantity"), dec("ol_amount", 6, 2), c("ol_dist_info", 24)}},
}

// Lookup returns the table called name.
func Lookup(name string) (*Table, bool) {
	for _, t := range Tables {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// ForeignKeys are the specification's foreign keys (clause 1.3) by
// table, added after the load with --fk.
var ForeignKeys = map[string][]schema.ForeignKey{
	District: {{Name: "fk_district_warehouse", Columns: []string{"d_w_id"}, Ref: Warehouse, RefColumns: []string{"w_id"}}},
	Customer: {{Name: "fk_customer_district", Columns: []string{"c_w_id", "c_d_id"}, Ref: District, RefColumns: []string{"d_w_id", "d_id"}}},
	History: {
		{Name: "fk_history_customer", Columns: []string{"h_c_w_id", "h_c_d_id", "h_c_id"}, Ref: Customer, RefColumns: []string{"c_w_id", "c_d_id", "c_id"}},
		{Name: "fk_history_district", Columns: []string{"h_w_id", "h_d_id"}, Ref: District, RefColumns: []string{"d_w_id", "d_id"}},
	},
	NewOrder: {{Name: "fk_new_order_orders", Columns: []string{"no_w_id", "no_d_id", "no_o_id"}, Ref: Orders, RefColumns: []string{"o_w_id", "o_d_id", "o_id"}}},
	Orders:   {{Name: "fk_orders_customer", Columns: []string{"o_w_id", "o_d_id", "o_c_id"}, Ref: Customer, RefColumns: []string{"c_w_id", "c_d_id", "c_id"}}},
	OrderLine: {
		{Name: "fk_order_line_orders", Columns: []string{"ol_w_id", "ol_d_id", "ol_o_id"}, Ref: Orders, RefColumns: []string{"o_w_id", "o_d_id", "o_id"}},
		{Name: "fk_order_line_stock", Columns: []string{"ol_supply_w_id", "ol_i_id"}, Ref: Stock, RefColumns: []string{"s_w_id", "s_i_id"}},
	},
	Stock: {
		{Name: "fk_stock_warehouse", Columns: []string{"s_w_id"}, Ref: Warehouse, RefColumns: []string{"w_id"}},
		{Name: "fk_stock_item", Columns: []string{"s_i_id"}, Ref: Item, RefColumns: []string{"i_id"}},
	},
}

// Declared returns the nine tables, with their foreign keys when fk is
// set. Tables is left as it is.
func Declared(fk bool) []*Table {
	out := make([]*Table, len(Tables))
	for n, t := range Tables {
		cp := *t
		if fk {
			cp.ForeignKeys = ForeignKeys[t.Name]
		}
		out[n] = &cp
	}
	return out
}
