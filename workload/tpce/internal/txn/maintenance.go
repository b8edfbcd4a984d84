package txn

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/engine"
)

// MaintainedTables are the tables Data-Maintenance changes, in the
// round-robin order the driver visits them.
var MaintainedTables = []string{
	"account_permission", "address", "company", "customer", "customer_taxrate", "daily_market",
	"exchange", "financial", "news_item", "security", "taxrate", "watch_item",
}

// DataMaintenanceInput is Data-Maintenance's input: the table to change
// and the keys its change needs (AcctID for account_permission; CID or
// else CoID for address; CoID for company, financial and news_item; CID
// for customer, customer_taxrate and watch_item; Symbol, DayOfMonth and
// VolIncr for daily_market; Symbol for security; TxID for taxrate;
// nothing for exchange).
type DataMaintenanceInput struct {
	TableName  string
	AcctID     int64
	CID        int64
	CoID       int64
	TxID       string
	Symbol     string
	DayOfMonth int
	VolIncr    int64
}

// DataMaintenance makes the small change the specification prescribes to
// one table, toggling between two values so that the data stays as
// generated in kind, and returns the number of rows changed.
func (c *Client) DataMaintenance(ctx context.Context, in DataMaintenanceInput) (int64, error) {
	var n int64
	err := c.inTx(ctx, func() error {
		var err error
		n, err = c.maintain(ctx, in)
		return err
	})
	return n, err
}

// toggle returns b when s is a, else a.
func toggle(s, a, b string) string {
	if s == a {
		return b
	}
	return a
}

func (c *Client) maintain(ctx context.Context, in DataMaintenanceInput) (int64, error) {
	switch in.TableName {
	case "account_permission":
		var acl string
		if err := c.must(ctx, "account_permission", `SELECT ap_acl FROM account_permission WHERE ap_ca_id = ? ORDER BY ap_acl DESC LIMIT 1`,
			[]any{in.AcctID}, &acl); err != nil {
			return 0, err
		}
		return c.exec(ctx, `UPDATE account_permission SET ap_acl = ? WHERE ap_ca_id = ? AND ap_acl = ?`, toggle(acl, "1111", "0011"), in.AcctID, acl)
	case "address":
		var ad int64
		var err error
		if in.CID != 0 {
			err = c.must(ctx, "customer", `SELECT c_ad_id FROM customer WHERE c_id = ?`, []any{in.CID}, &ad)
		} else {
			err = c.must(ctx, "company", `SELECT co_ad_id FROM company WHERE co_id = ?`, []any{in.CoID}, &ad)
		}
		if err != nil {
			return 0, err
		}
		var line2 sql.NullString
		if err := c.must(ctx, "address", `SELECT ad_line2 FROM address WHERE ad_id = ?`, []any{ad}, &line2); err != nil {
			return 0, err
		}
		return c.exec(ctx, `UPDATE address SET ad_line2 = ? WHERE ad_id = ?`, toggle(line2.String, "Apt. 10C", "Apt. 22"), ad)
	case "company":
		var rate string
		if err := c.must(ctx, "company", `SELECT co_sp_rate FROM company WHERE co_id = ?`, []any{in.CoID}, &rate); err != nil {
			return 0, err
		}
		return c.exec(ctx, `UPDATE company SET co_sp_rate = ? WHERE co_id = ?`, toggle(rate, "ABA", "AAA"), in.CoID)
	case "customer":
		var email sql.NullString
		if err := c.must(ctx, "customer", `SELECT c_email_2 FROM customer WHERE c_id = ?`, []any{in.CID}, &email); err != nil {
			return 0, err
		}
		local, domain, ok := strings.Cut(email.String, "@")
		if !ok {
			return 0, nil // no second address to change
		}
		return c.exec(ctx, `UPDATE customer SET c_email_2 = ? WHERE c_id = ?`, local+"@"+toggle(domain, "mindspring.com", "earthlink.com"), in.CID)
	case "customer_taxrate":
		var old string
		if err := c.must(ctx, "customer_taxrate", `SELECT cx_tx_id FROM customer_taxrate WHERE cx_c_id = ? AND cx_tx_id LIKE 'US%'`,
			[]any{in.CID}, &old); err != nil {
			return 0, err
		}
		next := "US1" // the national rates US1 … US5, in turn
		if len(old) == 3 && old[2] >= '1' && old[2] < '5' {
			next = "US" + string(old[2]+1)
		}
		return c.exec(ctx, `UPDATE customer_taxrate SET cx_tx_id = ? WHERE cx_c_id = ? AND cx_tx_id = ?`, next, in.CID, old)
	case "daily_market":
		// The days of the month are picked here, not in SQL, whose date
		// functions differ between engines.
		var days []any
		var d time.Time
		if _, err := c.each(ctx, `SELECT dm_date FROM daily_market WHERE dm_s_symb = ?`, []any{in.Symbol}, []any{&d}, func() error {
			if d.Day() == in.DayOfMonth {
				days = append(days, d)
			}
			return nil
		}); err != nil {
			return 0, err
		}
		if len(days) == 0 {
			return 0, nil
		}
		args := append([]any{in.VolIncr, in.Symbol}, days...)
		return c.exec(ctx, fmt.Sprintf(`UPDATE daily_market SET dm_vol = dm_vol + ? WHERE dm_s_symb = ? AND dm_date IN (%s)`, marks(len(days))), args...)
	case "exchange":
		type ex struct{ id, desc string }
		var all []ex
		var e ex
		var desc sql.NullString
		if _, err := c.each(ctx, `SELECT ex_id, ex_desc FROM exchange ORDER BY ex_id`, nil, []any{&e.id, &desc},
			func() error { e.desc = desc.String; all = append(all, e); return nil }); err != nil {
			return 0, err
		}
		stamp := " LAST UPDATED " + c.now().Format("2006-01-02 15:04:05.000000")
		var n int64
		for _, e := range all {
			d, _, _ := strings.Cut(e.desc, " LAST UPDATED ")
			d = truncate(d, 150-len(stamp)) + stamp
			k, err := c.exec(ctx, `UPDATE exchange SET ex_desc = ? WHERE ex_id = ?`, d, e.id)
			if err != nil {
				return n, err
			}
			n += k
		}
		return n, nil
	case "financial":
		type fin struct {
			year, qtr int64
			start     time.Time
		}
		var rows []fin
		var f fin
		first := false
		if _, err := c.each(ctx, `SELECT fi_year, fi_qtr, fi_qtr_start_date FROM financial WHERE fi_co_id = ?`, []any{in.CoID},
			[]any{&f.year, &f.qtr, &f.start}, func() error {
				first = first || f.start.Day() == 1
				rows = append(rows, f)
				return nil
			}); err != nil {
			return 0, err
		}
		shift := 1 // every quarter starts on the 1st: move them to the 2nd, and back
		if !first {
			shift = -1
		}
		var n int64
		for _, f := range rows {
			k, err := c.exec(ctx, `UPDATE financial SET fi_qtr_start_date = ? WHERE fi_co_id = ? AND fi_year = ? AND fi_qtr = ?`,
				f.start.AddDate(0, 0, shift), in.CoID, f.year, f.qtr)
			if err != nil {
				return n, err
			}
			n += k
		}
		return n, nil
	case "news_item":
		type news struct {
			id  int64
			dts time.Time
		}
		var rows []news
		var r news
		if _, err := c.each(ctx, `SELECT ni_id, ni_dts FROM news_item, news_xref WHERE nx_co_id = ? AND ni_id = nx_ni_id`, []any{in.CoID},
			[]any{&r.id, &r.dts}, func() error { rows = append(rows, r); return nil }); err != nil {
			return 0, err
		}
		var n int64
		for _, r := range rows {
			k, err := c.exec(ctx, `UPDATE news_item SET ni_dts = ? WHERE ni_id = ?`, r.dts.AddDate(0, 0, 1), r.id)
			if err != nil {
				return n, err
			}
			n += k
		}
		return n, nil
	case "security":
		var d time.Time
		if err := c.must(ctx, "security", `SELECT s_exch_date FROM security WHERE s_symb = ?`, []any{in.Symbol}, &d); err != nil {
			return 0, err
		}
		return c.exec(ctx, `UPDATE security SET s_exch_date = ? WHERE s_symb = ?`, d.AddDate(0, 0, 1), in.Symbol)
	case "taxrate":
		var name string
		if err := c.must(ctx, "taxrate", `SELECT tx_name FROM taxrate WHERE tx_id = ?`, []any{in.TxID}, &name); err != nil {
			return 0, err
		}
		if strings.Contains(name, " Tax ") {
			name = strings.Replace(name, " Tax ", " tax ", 1)
		} else {
			name = strings.Replace(name, " tax ", " Tax ", 1)
		}
		return c.exec(ctx, `UPDATE taxrate SET tx_name = ? WHERE tx_id = ?`, name, in.TxID)
	case "watch_item":
		var wl int64
		if err := c.must(ctx, "watch_list", `SELECT wl_id FROM watch_list WHERE wl_c_id = ?`, []any{in.CID}, &wl); err != nil {
			return 0, err
		}
		var symbols []string
		var s string
		if _, err := c.each(ctx, `SELECT wi_s_symb FROM watch_item WHERE wi_wl_id = ? ORDER BY wi_s_symb`, []any{wl}, []any{&s},
			func() error { symbols = append(symbols, s); return nil }); err != nil {
			return 0, err
		}
		if len(symbols) == 0 {
			return 0, nil
		}
		old := symbols[(len(symbols)-1)/2]
		var repl string
		err := c.row(ctx, `SELECT s_symb FROM security WHERE s_symb > ?
AND s_symb NOT IN (SELECT wi_s_symb FROM watch_item WHERE wi_wl_id = ?) ORDER BY s_symb LIMIT 1`, []any{old, wl}, &repl)
		if errors.Is(err, engine.ErrNoRows) {
			err = c.must(ctx, "security", `SELECT s_symb FROM security
WHERE s_symb NOT IN (SELECT wi_s_symb FROM watch_item WHERE wi_wl_id = ?) ORDER BY s_symb LIMIT 1`, []any{wl}, &repl)
		}
		if err != nil {
			return 0, err
		}
		return c.exec(ctx, `UPDATE watch_item SET wi_s_symb = ? WHERE wi_wl_id = ? AND wi_s_symb = ?`, repl, wl, old)
	}
	return 0, fmt.Errorf("tpce: data-maintenance of table %q: not one of %s", in.TableName, strings.Join(MaintainedTables, ", "))
}

// truncate cuts s to at most n bytes.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
