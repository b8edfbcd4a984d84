package procs

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/sqlproc"
)

// The MySQL flavor is the MariaDB form of the transactions: stored functions,
// called with SELECT. A function call is one statement, so in autocommit
// (procedure mode) everything the function does is one transaction, undone
// whole when it fails; in frames mode the client's BEGIN and COMMIT frame
// the calls.
//
// Each function returns text: "M" and the row it needed and did not find,
// or "R" and its JSON result. MariaDB writes a stored program's variables
// into JSON as strings, so numbers are written as expressions (v + 0) and
// booleans with IF(…, TRUE, FALSE); JSON built into a variable is spliced
// into the result as text (myWith). Lists arrive as JSON arrays, read with
// JSON_TABLE.
// MySQL (not MariaDB) lacks JSON_ARRAYAGG's ORDER BY, JSON_TABLE's
// ordinality in the same form and sequences: it is refused.
//
// The functions lock the rows client mode's statements lock and no more:
// MariaDB runs UPDATE … WHERE id IN (SELECT …) as a scan of the whole
// table, which under repeatable read locks every row it reads (a
// Market-Feed would hold every trade until it commits), so those updates
// are joins driven by the rows that select them (STRAIGHT_JOIN).
func init() {
	functions := sqlproc.MySQL{Functions: true}
	flavors.Register(engine.KindMySQL, flavor{
		inst: functions, sources: mySources, supported: mariaDBOnly,
		call: functions.Call, result: myResult,
	})
}

// myTS formats a DATETIME or DATE expression as RFC 3339 in UTC.
func myTS(e string) string { return "DATE_FORMAT(" + e + ", '%Y-%m-%dT%H:%i:%s.%fZ')" }

// myR2 rounds a DOUBLE variable to cents half away from zero (Go's
// math.Round).
func myR2(v string) string {
	return `(CASE WHEN ABS(` + v + ` * 100 - TRUNCATE(` + v + ` * 100, 0)) >= 0.5 THEN TRUNCATE(` + v + ` * 100, 0) + SIGN(` + v + ` * 100)
        ELSE TRUNCATE(` + v + ` * 100, 0) END) / 100`
}

// myReplace1 replaces the first occurrence of a in s, matching case
// (LOCATE follows the collation, case-insensitive by default).
func myReplace1(s, a, b string) string {
	return `IF(LOCATE(BINARY ` + a + `, ` + s + `) = 0, ` + s + `, INSERT(` + s + `, LOCATE(BINARY ` + a + `, ` + s + `), CHAR_LENGTH(` + a + `), ` + b + `))`
}

// myArray sets v to the JSON array of obj, a JSON object of the fields
// of record r, over the rows of sel in their order (NULL for no row, as
// JSON_ARRAYAGG). It takes the place of JSON_ARRAYAGG(obj ORDER BY …):
// the ORDER BY there sorts the objects in an internal temporary table,
// which for an object that may exceed 512 characters has a text column
// and is then an Aria table on disk, files created and removed at every
// call. The cursor's temporary table holds sel's columns, which must not
// be text (BLOB, TEXT) for it to stay in memory. A record's fields, as
// variables, go into JSON as strings: obj writes numbers as r.f + 0.
func myArray(v, r, sel, obj string) string { return myArrayPre(v, r, sel, "", obj) }

// myArrayPre is myArray with statements pre run for each row before obj
// is evaluated.
func myArrayPre(v, r, sel, pre, obj string) string {
	return `
    SET ` + v + ` = NULL;
    FOR ` + r + ` IN (` + sel + `) DO` + pre + `
        SET ` + v + ` = CONCAT(COALESCE(CONCAT(` + v + `, ','), '['), ` + obj + `);
    END FOR;
    SET ` + v + ` = CONCAT(` + v + `, ']');`
}

// myWith is the JSON object obj (an expression of one key or more; ""
// for none) with JSON texts added in front, kv naming each key and the
// expression of its text in turn (NULL writes null). The texts are
// spliced in as they are, where JSON_QUERY would parse and write them
// again.
func myWith(obj string, kv ...string) string {
	parts := []string{`'{'`}
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			parts = append(parts, `', '`)
		}
		parts = append(parts, `'"`+kv[i]+`": '`, `COALESCE(`+kv[i+1]+`, 'null')`)
	}
	if obj == "" {
		parts = append(parts, `'}'`)
	} else {
		parts = append(parts, `', '`, `SUBSTRING(`+obj+`, 2)`)
	}
	return "CONCAT(" + strings.Join(parts, ", ") + ")"
}

// myB is a boolean expression as a JSON boolean.
func myB(e string) string { return "IF(" + e + ", TRUE, FALSE)" }

// myD is a number as a DOUBLE.
func myD(e string) string { return "CAST(" + e + " AS DOUBLE)" }

// myInto runs a SELECT … INTO that the next myNF checks.
func myInto(q string) string { return "\n    SET v_found = 1;\n    " + q }

// myNF returns "M" naming what and the values of exprs when the last
// myInto found no row.
func myNF(what string, exprs ...string) string {
	return `
    IF v_found = 0 THEN
        RETURN CONCAT('M', '` + what + ` [', CONCAT_WS(' ', ` + strings.Join(exprs, ", ") + `), ']');
    END IF;`
}

// myRaiseNF signals an error when the last myInto found no row, once the
// function has written.
func myRaiseNF(what string, exprs ...string) string {
	return `
    IF v_found = 0 THEN
        SET v_msg = CONCAT('tpce: row not found: ` + what + ` [', CONCAT_WS(' ', ` + strings.Join(exprs, ", ") + `), ']');
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
    END IF;`
}

// myFunc is the text of one CREATE FUNCTION.
func myFunc(name, params, access, decl, body string) string {
	return `CREATE FUNCTION ` + name + `(` + params + `) RETURNS LONGTEXT NOT DETERMINISTIC ` + access + `
BEGIN
    DECLARE v_found INT DEFAULT 1;
    DECLARE v_msg VARCHAR(500);` + decl + `
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;` + body + `
END`
}

const (
	myReads  = "READS SQL DATA"
	myWrites = "MODIFIES SQL DATA"
)

var myTradeStatus = myFunc(nameTradeStatus, `p_acct_id BIGINT`, myReads, `
    DECLARE v_trades LONGTEXT;
    DECLARE v_l, v_f, v_b VARCHAR(100);`, `
`+myArray("v_trades", "r", `SELECT t_id, t_dts, st_name, tt_name, t_s_symb, t_qty, t_exec_name, t_chrg, s_name, ex_name
                FROM trade, status_type, trade_type, security, exchange
               WHERE t_ca_id = p_acct_id AND st_id = t_st_id AND tt_id = t_tt_id AND s_symb = t_s_symb AND ex_id = s_ex_id
               ORDER BY t_dts DESC LIMIT 50`, `JSON_OBJECT('tradeid', r.t_id + 0, 'dts', `+myTS("r.t_dts")+`, 'status', r.st_name,
            'type', r.tt_name, 'symbol', r.t_s_symb, 'qty', r.t_qty + 0, 'execname', r.t_exec_name, 'charge', r.t_chrg + 0,
            'secname', r.s_name, 'exchange', r.ex_name)`)+myInto(`SELECT c_l_name, c_f_name, b_name INTO v_l, v_f, v_b FROM customer_account, customer, broker
     WHERE ca_id = p_acct_id AND c_id = ca_c_id AND b_id = ca_b_id;`)+myNF("customer_account", "p_acct_id")+`
    RETURN CONCAT('R', `+myWith(`JSON_OBJECT('custlname', v_l, 'custfname', v_f, 'brokername', v_b)`, "trades", "v_trades")+`);`)

var myBrokerVolume = myFunc(nameBrokerVolume, `p_brokers LONGTEXT, p_sector VARCHAR(30)`, myReads, `
    DECLARE v LONGTEXT;`, `
    SET v = (SELECT JSON_ARRAYAGG(JSON_OBJECT('broker', b_name, 'volume', vol) ORDER BY vol DESC, b_name)
        FROM (SELECT b_name, SUM(tr_qty * tr_bid_price) AS vol
                FROM trade_request, sector, industry, company, broker, security
               WHERE tr_b_id = b_id AND tr_s_symb = s_symb AND s_co_id = co_id AND co_in_id = in_id AND sc_id = in_sc_id
                 AND b_name IN (SELECT j.name FROM JSON_TABLE(p_brokers, '$[*]' COLUMNS (name VARCHAR(100) PATH '$')) j)
                 AND sc_name = p_sector
               GROUP BY b_name) r);
    RETURN CONCAT('R', COALESCE(v, 'null'));`)

const myCPDecl = `
    DECLARE v_cust BIGINT DEFAULT p_cust_id;
    DECLARE v_l, v_f, v_tax VARCHAR(100);
    DECLARE v_tier INT;
    DECLARE v_n INT;
    DECLARE v_accts, v_ids, v_hist LONGTEXT;`

var myCPFrame1 = `
    IF v_cust = 0 THEN` + myInto(`SELECT c_id INTO v_cust FROM customer WHERE c_tax_id = p_tax_id;`) + `
        IF v_found = 0 THEN
            RETURN CONCAT('M', 'customer by tax id [', p_tax_id, ']');
        END IF;
    END IF;` + myInto(`SELECT c_l_name, c_f_name, c_tier, c_tax_id INTO v_l, v_f, v_tier, v_tax FROM customer WHERE c_id = v_cust;`) +
	myNF("customer", "v_cust") + `
    SELECT JSON_ARRAYAGG(JSON_OBJECT('acctid', ca_id, 'cashbal', ca_bal, 'assetstot', assets) ORDER BY assets, ca_id),
           JSON_ARRAYAGG(ca_id ORDER BY assets, ca_id), COUNT(*)
      INTO v_accts, v_ids, v_n
      FROM (SELECT ca_id, ca_bal, COALESCE(SUM(hs_qty * lt_price), 0) AS assets
              FROM customer_account LEFT JOIN holding_summary ON hs_ca_id = ca_id
                   LEFT JOIN last_trade ON lt_s_symb = hs_s_symb
             WHERE ca_c_id = v_cust GROUP BY ca_id, ca_bal ORDER BY assets, ca_id LIMIT 10) a;`

const myCPFrame2 = `
    SET v_hist = (SELECT JSON_ARRAYAGG(JSON_OBJECT('tradeid', t_id, 'symbol', t_s_symb, 'qty', t_qty, 'status', st_name,
            'dts', DATE_FORMAT(th_dts, '%Y-%m-%dT%H:%i:%s.%fZ')) ORDER BY th_dts DESC)
        FROM (SELECT t_id, t_s_symb, t_qty, st_name, th_dts
                FROM (SELECT t_id AS id FROM trade WHERE t_ca_id = v_acct ORDER BY t_dts DESC LIMIT 10) t10,
                     trade, trade_history, status_type
               WHERE t_id = id AND th_t_id = t_id AND st_id = th_st_id
               ORDER BY th_dts DESC LIMIT 30) h);`

var myCPResult = `
    RETURN CONCAT('R', ` + myWith(`JSON_OBJECT('custid', v_cust + 0, 'lname', v_l, 'fname', v_f, 'taxid', v_tax, 'tier', v_tier + 0)`,
	"accounts", "v_accts", "history", "v_hist") + `);`

var myCustomerPosition = myFunc(nameCustomerPosition,
	`p_cust_id BIGINT, p_tax_id VARCHAR(20), p_get_history BOOLEAN, p_acct_idx INT`, myReads, myCPDecl+`
    DECLARE v_acct BIGINT;`, myCPFrame1+`
    IF p_get_history AND v_n > 0 THEN
        SET v_acct = JSON_VALUE(v_ids, CONCAT('$[', p_acct_idx MOD v_n, ']'));`+myCPFrame2+`
    END IF;`+myCPResult)

var myCPF1 = myFunc(nameCPFrame1, `p_cust_id BIGINT, p_tax_id VARCHAR(20)`, myReads, myCPDecl, myCPFrame1+myCPResult)

var myCPF2 = myFunc(nameCPFrame2, `v_acct BIGINT`, myReads, `
    DECLARE v_hist LONGTEXT;`, myCPFrame2+`
    RETURN CONCAT('R', `+myWith("", "history", "v_hist")+`);`)

func myMWLoop(label, src string) string {
	return `
        ` + label + `: FOR r IN (` + src + `) DO
            SET v_found = 1;
            SELECT CAST(s_num_out AS DOUBLE) * CAST(lt_price AS DOUBLE), CAST(s_num_out AS DOUBLE) * CAST(dm_close AS DOUBLE)
              INTO v_cap_new, v_cap_old FROM last_trade, security, daily_market
             WHERE lt_s_symb = r.s AND s_symb = lt_s_symb AND dm_s_symb = lt_s_symb AND dm_date = p_start_day;
            IF v_found = 1 THEN
                SET v_n = v_n + 1;
                SET v_new = v_new + v_cap_new;
                SET v_old = v_old + v_cap_old;
            END IF;
        END FOR ` + label + `;`
}

var myMarketWatch = myFunc(nameMarketWatch,
	`p_acct_id BIGINT, p_cust_id BIGINT, p_industry VARCHAR(50), p_start_co BIGINT, p_end_co BIGINT, p_start_day DATE`, myReads, `
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_old, v_new, v_pct, v_cap_new, v_cap_old DOUBLE DEFAULT 0;`, `
    IF p_cust_id <> 0 THEN`+myMWLoop("w", `SELECT wi_s_symb AS s FROM watch_item, watch_list WHERE wl_c_id = p_cust_id AND wi_wl_id = wl_id`)+`
    ELSEIF p_industry <> '' THEN`+myMWLoop("i", `SELECT s_symb AS s FROM industry, company, security
                  WHERE in_name = p_industry AND co_in_id = in_id AND co_id BETWEEN p_start_co AND p_end_co AND s_co_id = co_id`)+`
    ELSEIF p_acct_id <> 0 THEN`+myMWLoop("h", `SELECT hs_s_symb AS s FROM holding_summary WHERE hs_ca_id = p_acct_id`)+`
    ELSE
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'tpce: market-watch needs a customer, an industry or an account';
    END IF;
    IF v_old <> 0 THEN
        SET v_pct = 100 * (v_new / v_old - 1);
    END IF;
    RETURN CONCAT('R', JSON_OBJECT('pctchange', v_pct + 0, 'symbols', v_n + 0));`)

var mySecurityDetail = myFunc(nameSecurityDetail,
	`p_symbol VARCHAR(15), p_max_rows INT, p_start_day DATE, p_access_lob BOOLEAN`, myReads, `
    DECLARE v_co_id BIGINT;
    DECLARE v_price DOUBLE;
    DECLARE v, v_fin, v_news LONGTEXT;`, myInto(`SELECT s_co_id INTO v_co_id FROM security WHERE s_symb = p_symbol;`)+myNF("security", "p_symbol")+
		myInto(`SELECT lt_price INTO v_price FROM last_trade WHERE lt_s_symb = p_symbol;`)+myNF("last_trade", "p_symbol")+
		myArray("v_fin", "f", `SELECT fi_year, fi_qtr, fi_qtr_start_date, fi_revenue, fi_net_earn, fi_basic_eps, fi_dilut_eps, fi_margin,
                fi_inventory, fi_assets, fi_liability, fi_out_basic, fi_out_dilut
           FROM financial WHERE fi_co_id = v_co_id ORDER BY fi_year, fi_qtr LIMIT 20`,
			`JSON_OBJECT('year', f.fi_year + 0, 'qtr', f.fi_qtr + 0, 'qtrstart', `+myTS("f.fi_qtr_start_date")+`,
            'revenue', f.fi_revenue + 0, 'netearn', f.fi_net_earn + 0, 'basiceps', f.fi_basic_eps + 0, 'diluteps', f.fi_dilut_eps + 0,
            'margin', f.fi_margin + 0, 'inventory', f.fi_inventory + 0, 'assets', f.fi_assets + 0, 'liability', f.fi_liability + 0,
            'outbasic', f.fi_out_basic + 0, 'outdilut', f.fi_out_dilut + 0)`)+
		myArray("v_news", "n", `SELECT ni_id FROM news_xref, news_item WHERE ni_id = nx_ni_id AND nx_co_id = v_co_id ORDER BY ni_id LIMIT 2`,
			`(SELECT IF(p_access_lob, JSON_OBJECT('item', REPLACE(TO_BASE64(ni_item), '\n', ''), 'dts', `+myTS("ni_dts")+`, 'source', ni_source,
                'author', COALESCE(ni_author, '')),
                JSON_OBJECT('dts', `+myTS("ni_dts")+`, 'source', ni_source, 'author', COALESCE(ni_author, ''), 'headline', ni_headline,
                'summary', ni_summary))
            FROM news_item WHERE ni_id = n.ni_id)`)+`
    SELECT JSON_OBJECT(
        'sname', s_name, 'coid', co_id, 'coname', co_name, 'sprate', co_sp_rate, 'ceo', co_ceo,
        'codesc', co_desc, 'opendate', `+myTS("co_open_date")+`, 'coaddress', COALESCE(ca.ad_line1, ''),
        'cotown', zca.zc_town, 'codiv', zca.zc_div, 'cozip', ca.ad_zc_code, 'numout', s_num_out,
        'startdate', `+myTS("s_start_date")+`, 'exchdate', `+myTS("s_exch_date")+`, 'pe', s_pe,
        'high52', s_52wk_high, 'low52', s_52wk_low, 'dividend', s_dividend, 'yield', s_yield,
        'high52date', `+myTS("s_52wk_high_date")+`, 'low52date', `+myTS("s_52wk_low_date")+`,
        'exname', ex_name, 'exaddress', COALESCE(ea.ad_line1, ''), 'extown', zea.zc_town, 'exzip', ea.ad_zc_code,
        'exopen', ex_open, 'exclose', ex_close, 'exnumsymb', ex_num_symb,
        'competitors', (SELECT JSON_ARRAYAGG(CONCAT(x.co_name, ' (', x.in_name, ')') ORDER BY x.cp_comp_co_id) FROM (
            SELECT c2.co_name, in_name, cp_comp_co_id FROM company_competitor, company c2, industry
             WHERE cp_co_id = v_co_id AND c2.co_id = cp_comp_co_id AND in_id = cp_in_id ORDER BY cp_comp_co_id LIMIT 3) x),
        'days', (SELECT JSON_ARRAYAGG(JSON_OBJECT('date', `+myTS("dm_date")+`, 'close', dm_close, 'high', dm_high, 'low', dm_low,
                'vol', dm_vol) ORDER BY dm_date) FROM (
            SELECT dm_date, dm_close, dm_high, dm_low, dm_vol FROM daily_market
             WHERE dm_s_symb = p_symbol AND dm_date >= p_start_day ORDER BY dm_date LIMIT p_max_rows) d),
        'lastprice', lt_price, 'openprice', lt_open_price, 'lastvol', lt_vol)
      INTO v
      FROM security, company, address ca, address ea, zip_code zca, zip_code zea, exchange, last_trade
     WHERE s_symb = p_symbol AND co_id = s_co_id AND ca.ad_id = co_ad_id AND ex_id = s_ex_id AND ea.ad_id = ex_ad_id
       AND zca.zc_code = ca.ad_zc_code AND zea.zc_code = ea.ad_zc_code AND lt_s_symb = s_symb;
    RETURN CONCAT('R', `+myWith("v", "financials", "v_fin", "news", "v_news")+`);`)

// myTradesJSON turns sel's trades (columns ord, t_id, ca, t_dts, bid,
// xname, is_cash, mrkt, price, qty, tt) into the JSON array of
// txn.TradeInfo, into v_trades.
func myTradesJSON(sel string) string {
	return myArrayPre("v_trades", "r", `SELECT s.*, se_amt, se_cash_due_date, se_cash_type, ct_amt, ct_dts, ct_name
            FROM (`+sel+`) s
            LEFT JOIN settlement ON se_t_id = s.t_id
            LEFT JOIN cash_transaction ON s.is_cash AND ct_t_id = s.t_id
           ORDER BY s.ord`, `
        SELECT JSON_ARRAYAGG(`+myTS("th_dts")+` ORDER BY th_dts LIMIT 3), JSON_ARRAYAGG(th_st_id ORDER BY th_dts LIMIT 3)
          INTO v_hist_dts, v_hist_st FROM trade_history WHERE th_t_id = r.t_id;`, myWith(`JSON_OBJECT('tradeid', r.t_id + 0, 'acctid', r.ca + 0, 'dts', `+myTS("r.t_dts")+`,
                'bidprice', r.bid + 0, 'execname', r.xname, 'iscash', `+myB("r.is_cash")+`, 'ismarket', `+myB("r.mrkt")+`,
                'tradeprice', r.price + 0, 'qty', r.qty + 0, 'typeid', r.tt, 'settleamt', r.se_amt + 0,
                'settledue', `+myTS("r.se_cash_due_date")+`, 'cashtype', r.se_cash_type, 'cashamt', r.ct_amt + 0,
                'cashdts', `+myTS("r.ct_dts")+`, 'cashname', r.ct_name)`, "histdts", "v_hist_dts", "histstatus", "v_hist_st"))
}

const myIDs = `JSON_TABLE(CONCAT('[', p_ids, ']'), '$[*]' COLUMNS (ord FOR ORDINALITY, id BIGINT PATH '$')) j`

// myLookupTrades reads the trades of Trade-Lookup's (and Trade-Update's)
// frames 1 to 3; p_ids is a comma-separated list.
var myLookupTrades = myFunc(nameLookupTrades, `p_frame INT, p_ids LONGTEXT, p_acct_id BIGINT, p_symbol VARCHAR(15),
        p_start DATETIME(6), p_end DATETIME(6), p_max INT`, myReads, `
    DECLARE v_trades, v_hist_dts, v_hist_st LONGTEXT;
    DECLARE v_n INT;
    DECLARE v_id BIGINT;`, `
    IF p_frame = 1 THEN
        SELECT COUNT(*) INTO v_n FROM `+myIDs+` JOIN trade ON t_id = j.id;
        IF v_n < JSON_LENGTH(CONCAT('[', p_ids, ']')) THEN`+myInto(`SELECT j.id INTO v_id FROM `+myIDs+`
             WHERE NOT EXISTS (SELECT 1 FROM trade WHERE t_id = j.id) ORDER BY j.ord LIMIT 1;`)+`
            RETURN CONCAT('M', 'trade [', v_id, ']');
        END IF;`+myTradesJSON(`
            SELECT j.ord, t_id, NULL AS ca, t_dts, t_bid_price AS bid, t_exec_name AS xname, t_is_cash AS is_cash,
                   tt_is_mrkt AS mrkt, t_trade_price AS price, NULL AS qty, NULL AS tt
              FROM `+myIDs+` JOIN trade ON t_id = j.id JOIN trade_type ON tt_id = t_tt_id`)+`
    ELSEIF p_frame = 2 THEN`+myTradesJSON(`
            SELECT ROW_NUMBER() OVER (ORDER BY t_dts) AS ord, t_id, NULL AS ca, t_dts, t_bid_price AS bid, t_exec_name AS xname,
                   t_is_cash AS is_cash, NULL AS mrkt, t_trade_price AS price, NULL AS qty, NULL AS tt
              FROM (SELECT t_id, t_dts, t_bid_price, t_exec_name, t_is_cash, t_trade_price FROM trade
                     WHERE t_ca_id = p_acct_id AND t_dts >= p_start AND t_dts <= p_end ORDER BY t_dts LIMIT p_max) x`)+`
    ELSEIF p_frame = 3 THEN`+myTradesJSON(`
            SELECT ROW_NUMBER() OVER (ORDER BY t_dts) AS ord, t_id, t_ca_id AS ca, t_dts, NULL AS bid, t_exec_name AS xname,
                   t_is_cash AS is_cash, NULL AS mrkt, t_trade_price AS price, t_qty AS qty, t_tt_id AS tt
              FROM (SELECT t_id, t_dts, t_ca_id, t_exec_name, t_is_cash, t_trade_price, t_qty, t_tt_id FROM trade
                     WHERE t_s_symb = p_symbol AND t_dts >= p_start AND t_dts <= p_end ORDER BY t_dts LIMIT p_max) x`)+`
    ELSE
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'tpce: trade-lookup frame out of 1 to 4';
    END IF;
    RETURN CONCAT('R', COALESCE(v_trades, 'null'));`)

const myLookupParams = `p_frame INT, p_trade_ids LONGTEXT, p_acct_id BIGINT, p_symbol VARCHAR(15),
        p_start DATETIME(6), p_end DATETIME(6), p_max INT`

const myLookupCall = `tpce_lookup_trades(p_frame, p_trade_ids, p_acct_id, p_symbol, p_start, p_end, p_max)`

var myTradeLookup = myFunc(nameTradeLookup, myLookupParams, myReads, `
    DECLARE v_first BIGINT;
    DECLARE v_hist, v LONGTEXT;`, `
    IF p_frame = 4 THEN`+myInto(`SELECT t_id INTO v_first FROM trade WHERE t_ca_id = p_acct_id AND t_dts >= p_start ORDER BY t_dts LIMIT 1;`)+`
        IF v_found = 0 THEN
            RETURN 'R{"tradeid": 0}';
        END IF;
        SET v_hist = (SELECT JSON_ARRAYAGG(JSON_OBJECT('holdingtradeid', hh_h_t_id, 'tradeid', hh_t_id, 'beforeqty', hh_before_qty,
                'afterqty', hh_after_qty) ORDER BY hh_h_t_id, hh_t_id)
            FROM (SELECT hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty FROM holding_history
                   WHERE hh_h_t_id IN (SELECT hh_h_t_id FROM holding_history WHERE hh_t_id = v_first)
                   ORDER BY hh_h_t_id, hh_t_id LIMIT 20) h);
        RETURN CONCAT('R', `+myWith("JSON_OBJECT('tradeid', v_first + 0)", "history", "v_hist")+`);
    END IF;
    SET v = `+myLookupCall+`;
    IF LEFT(v, 1) = 'M' THEN
        RETURN v;
    END IF;
    RETURN CONCAT('R', `+myWith("", "trades", "SUBSTRING(v, 2)")+`);`)

var myTradeUpdate = myFunc(nameTradeUpdate, myLookupParams+`, p_max_updates INT`, myWrites, `
    DECLARE v LONGTEXT;
    DECLARE v_upd BIGINT DEFAULT 0;
    DECLARE v_new VARCHAR(200);`, `
    SET v = `+myLookupCall+`;
    IF LEFT(v, 1) = 'M' THEN
        RETURN v;
    END IF;
    upd: FOR r IN (SELECT id, xname, cash_type, is_cash, cash_name
                     FROM JSON_TABLE(SUBSTRING(v, 2), '$[*]' COLUMNS (ord FOR ORDINALITY, id BIGINT PATH '$.tradeid',
                          xname VARCHAR(200) PATH '$.execname', cash_type VARCHAR(40) PATH '$.cashtype',
                          is_cash VARCHAR(5) PATH '$.iscash', cash_name VARCHAR(200) PATH '$.cashname')) j
                    ORDER BY ord) DO
        IF v_upd >= p_max_updates THEN
            LEAVE upd;
        END IF;
        IF p_frame = 1 THEN
            SET v_new = IF(LOCATE(BINARY ' X ', r.xname) > 0, `+myReplace1("r.xname", "' X '", "' '")+`, `+myReplace1("r.xname", "' '", "' X '")+`);
            UPDATE trade SET t_exec_name = v_new WHERE t_id = r.id;
            SET v_upd = v_upd + ROW_COUNT();
        ELSEIF p_frame = 2 THEN
            IF COALESCE(r.cash_type, '') <> '' THEN
                SET v_new = CASE r.cash_type WHEN 'Cash Account' THEN 'Cash' WHEN 'Cash' THEN 'Cash Account'
                                             WHEN 'Margin Account' THEN 'Margin' ELSE 'Margin Account' END;
                UPDATE settlement SET se_cash_type = v_new WHERE se_t_id = r.id;
                SET v_upd = v_upd + ROW_COUNT();
            END IF;
        ELSE
            IF r.is_cash = 'true' AND COALESCE(r.cash_name, '') <> '' THEN
                SET v_new = IF(LOCATE(BINARY ' shares of ', r.cash_name) > 0, `+myReplace1("r.cash_name", "' shares of '", "' Shares of '")+`,
                               `+myReplace1("r.cash_name", "' Shares of '", "' shares of '")+`);
                UPDATE cash_transaction SET ct_name = v_new WHERE ct_t_id = r.id;
                SET v_upd = v_upd + ROW_COUNT();
            END IF;
        END IF;
    END FOR upd;
    SET v = `+myLookupCall+`;
    RETURN CONCAT('R', `+myWith("JSON_OBJECT('updated', v_upd + 0)", "trades", "SUBSTRING(v, 2)")+`);`)

// Trade-Order's frames, shared by the procedure and the frame functions
// as on PostgreSQL.
var myTOFrame1 = myInto(`SELECT ca_b_id, ca_c_id, ca_tax_st INTO v_b_id, v_c_id, v_tax_st FROM customer_account WHERE ca_id = p_acct_id;`) +
	myNF("customer_account", "p_acct_id") +
	myInto(`SELECT c_f_name, c_l_name, c_tier, c_tax_id INTO v_f_name, v_l_name, v_tier, v_tax_id FROM customer WHERE c_id = v_c_id;`) +
	myNF("customer", "v_c_id") +
	myInto(`SELECT b_name INTO v_b_name FROM broker WHERE b_id = v_b_id;`) + myNF("broker", "v_b_id")

const myTOFrame1Decl = `
    DECLARE v_b_id, v_c_id BIGINT;
    DECLARE v_tax_st, v_tier INT;
    DECLARE v_f_name, v_l_name, v_tax_id, v_b_name VARCHAR(100);`

var myTOFrame2 = myInto(`SELECT ap_acl INTO v_acl FROM account_permission
     WHERE ap_ca_id = p_acct_id AND ap_f_name = p_exec_f_name AND ap_l_name = p_exec_l_name AND ap_tax_id = p_exec_tax_id;`) + `
    IF v_found = 0 THEN
        RETURN 'R{"noperm": true}';
    END IF;`

const myTOFrame3Decl = `
    DECLARE v_co_id BIGINT;
    DECLARE v_co_name VARCHAR(100);
    DECLARE v_ex_id VARCHAR(6);
    DECLARE v_s_name VARCHAR(100);
    DECLARE v_symb VARCHAR(15) DEFAULT p_symbol;
    DECLARE v_market, v_rate, v_comm_rate, v_charge, v_bal, v_held DOUBLE;
    DECLARE v_req DOUBLE DEFAULT p_requested_price;
    DECLARE v_buy, v_sell, v_tax, v_assets DOUBLE DEFAULT 0;
    DECLARE v_is_mrkt, v_is_sell BOOLEAN;
    DECLARE v_hs, v_sign, v_q INT;
    DECLARE v_needed INT DEFAULT p_trade_qty;`

func myTOLots(label, order string) string {
	return `
            ` + label + `: FOR h IN (SELECT h_qty, h_price FROM holding WHERE h_ca_id = p_acct_id AND h_s_symb = v_symb ORDER BY ` + order + `) DO
                IF v_needed = 0 THEN
                    LEAVE ` + label + `;
                END IF;
                SET v_q = LEAST(v_sign * h.h_qty, v_needed);
                SET v_buy = v_buy + CAST(v_q AS DOUBLE) * CAST(h.h_price AS DOUBLE);
                SET v_sell = v_sell + CAST(v_q AS DOUBLE) * v_req;
                SET v_needed = v_needed - v_q;
            END FOR ` + label + `;`
}

var myTOFrame3 = `
    IF p_symbol = '' THEN` + myInto(`SELECT co_id INTO v_co_id FROM company WHERE co_name = p_co_name;`) + myNF("company", "p_co_name") +
	myInto(`SELECT s_ex_id, s_name, s_symb INTO v_ex_id, v_s_name, v_symb FROM security WHERE s_co_id = v_co_id AND s_issue = p_issue;`) +
	myNF("security", "v_co_id", "p_issue") + `
    ELSE` + myInto(`SELECT s_co_id, s_ex_id, s_name INTO v_co_id, v_ex_id, v_s_name FROM security WHERE s_symb = p_symbol;`) +
	myNF("security", "p_symbol") + myInto(`SELECT co_name INTO v_co_name FROM company WHERE co_id = v_co_id;`) + myNF("company", "v_co_id") + `
    END IF;` + myInto(`SELECT lt_price INTO v_market FROM last_trade WHERE lt_s_symb = v_symb;`) + myNF("last_trade", "v_symb") +
	myInto(`SELECT tt_is_mrkt, tt_is_sell INTO v_is_mrkt, v_is_sell FROM trade_type WHERE tt_id = p_trade_type_id;`) +
	myNF("trade_type", "p_trade_type_id") + `
    IF v_is_mrkt THEN
        SET v_req = v_market;
    END IF;` + myInto(`SELECT hs_qty INTO v_hs FROM holding_summary WHERE hs_ca_id = p_acct_id AND hs_s_symb = v_symb;`) + `
    IF v_found = 0 THEN
        SET v_hs = 0;
    END IF;
    IF (v_is_sell AND v_hs > 0) OR (NOT v_is_sell AND v_hs < 0) THEN
        SET v_sign = IF(v_is_sell, 1, -1);
        IF p_is_lifo THEN` + myTOLots("lifo", "h_dts DESC, h_t_id DESC") + `
        ELSE` + myTOLots("fifo", "h_dts, h_t_id") + `
        END IF;
    END IF;
    IF v_sell > v_buy AND v_tax_st IN (1, 2) THEN
        SELECT COALESCE(SUM(tx_rate), 0) INTO v_rate FROM taxrate, customer_taxrate WHERE cx_c_id = v_c_id AND tx_id = cx_tx_id;
        SET v_tax = (v_sell - v_buy) * v_rate;
        SET v_tax = ` + myR2("v_tax") + `;
    END IF;` + myInto(`SELECT cr_rate INTO v_comm_rate FROM commission_rate
     WHERE cr_c_tier = v_tier AND cr_tt_id = p_trade_type_id AND cr_ex_id = v_ex_id
       AND cr_from_qty <= p_trade_qty AND cr_to_qty >= p_trade_qty;`) + myNF("commission_rate", "v_tier", "p_trade_type_id", "v_ex_id", "p_trade_qty") +
	myInto(`SELECT ch_chrg INTO v_charge FROM charge WHERE ch_c_tier = v_tier AND ch_tt_id = p_trade_type_id;`) +
	myNF("charge", "v_tier", "p_trade_type_id") + `
    IF p_type_is_margin THEN` + myInto(`SELECT ca_bal INTO v_bal FROM customer_account WHERE ca_id = p_acct_id;`) + myNF("customer_account", "p_acct_id") + `
        SELECT COALESCE(SUM(hs_qty * lt_price), 0) INTO v_held FROM holding_summary, last_trade
         WHERE hs_ca_id = p_acct_id AND lt_s_symb = hs_s_symb;
        SET v_assets = v_bal + v_held;
    END IF;`

const myTOFrame4 = `
    SET v_t_id = NEXTVAL(tpce_trade_id);
    INSERT INTO trade (t_id, t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb, t_qty, t_bid_price, t_ca_id, t_exec_name,
                       t_trade_price, t_chrg, t_comm, t_tax, t_lifo)
    VALUES (v_t_id, p_now, v_status, p_trade_type_id, NOT p_type_is_margin, v_symb, p_trade_qty, v_req, p_acct_id,
            CONCAT(p_exec_f_name, ' ', p_exec_l_name), NULL, v_charge, v_comm, 0, p_is_lifo);
    IF NOT v_is_mrkt THEN
        INSERT INTO trade_request (tr_t_id, tr_tt_id, tr_s_symb, tr_qty, tr_bid_price, tr_b_id)
        VALUES (v_t_id, p_trade_type_id, v_symb, p_trade_qty, v_req, v_b_id);
    END IF;
    INSERT INTO trade_history (th_t_id, th_dts, th_st_id) VALUES (v_t_id, p_now, v_status);`

const myTOParams = `p_acct_id BIGINT, p_exec_f_name VARCHAR(100), p_exec_l_name VARCHAR(100), p_exec_tax_id VARCHAR(20), p_is_lifo BOOLEAN,
        p_co_name VARCHAR(100), p_issue VARCHAR(6), p_symbol VARCHAR(15), p_trade_type_id VARCHAR(3), p_requested_price DOUBLE,
        p_trade_qty INT, p_type_is_margin BOOLEAN, p_now DATETIME(6)`

const myTOResult = `
    RETURN CONCAT('R', JSON_OBJECT('tradeid', v_t_id + 0, 'symbol', v_symb, 'tradetypeid', p_trade_type_id,
        'tradeqty', p_trade_qty + 0, 'requestedprice', v_req + 0, 'ismarket', IF(v_is_mrkt, TRUE, FALSE),
        'issell', IF(v_is_sell, TRUE, FALSE), 'status', v_status, 'buyvalue', v_buy + 0, 'sellvalue', v_sell + 0,
        'taxamount', v_tax + 0, 'commrate', v_comm_rate + 0, 'chargeamount', v_charge + 0, 'acctassets', v_assets + 0));`

var myTradeOrder = myFunc(nameTradeOrder, myTOParams, myWrites, myTOFrame1Decl+`
    DECLARE v_acl VARCHAR(4);`+myTOFrame3Decl+`
    DECLARE v_status VARCHAR(4);
    DECLARE v_t_id BIGINT;
    DECLARE v_comm DOUBLE;`, myTOFrame1+`
    IF p_exec_l_name <> v_l_name OR p_exec_f_name <> v_f_name OR p_exec_tax_id <> v_tax_id THEN`+myTOFrame2+`
    END IF;`+myTOFrame3+`
    SET v_status = IF(v_is_mrkt, 'SBMT', 'PNDG');
    SET v_comm = v_comm_rate / 100 * p_trade_qty * v_req;
    SET v_comm = `+myR2("v_comm")+`;`+myTOFrame4+myTOResult)

var myTOF1 = myFunc(nameTOFrame1, `p_acct_id BIGINT`, myReads, myTOFrame1Decl, myTOFrame1+`
    RETURN CONCAT('R', JSON_OBJECT('brokerid', v_b_id + 0, 'custid', v_c_id + 0, 'taxstatus', v_tax_st + 0, 'fname', v_f_name,
        'lname', v_l_name, 'tier', v_tier + 0, 'taxid', v_tax_id, 'brokername', v_b_name));`)

var myTOF2 = myFunc(nameTOFrame2, `p_acct_id BIGINT, p_exec_f_name VARCHAR(100), p_exec_l_name VARCHAR(100), p_exec_tax_id VARCHAR(20)`, myReads, `
    DECLARE v_acl VARCHAR(4);`, myTOFrame2+`
    RETURN CONCAT('R', JSON_OBJECT('acl', v_acl));`)

var myTOF3 = myFunc(nameTOFrame3, `p_acct_id BIGINT, v_c_id BIGINT, v_tax_st INT, v_tier INT, p_is_lifo BOOLEAN,
        p_co_name VARCHAR(100), p_issue VARCHAR(6), p_symbol VARCHAR(15), p_trade_type_id VARCHAR(3), p_requested_price DOUBLE,
        p_trade_qty INT, p_type_is_margin BOOLEAN`, myReads, myTOFrame3Decl, myTOFrame3+`
    RETURN CONCAT('R', JSON_OBJECT('symbol', v_symb, 'requestedprice', v_req + 0, 'ismarket', IF(v_is_mrkt, TRUE, FALSE),
        'issell', IF(v_is_sell, TRUE, FALSE), 'buyvalue', v_buy + 0, 'sellvalue', v_sell + 0, 'taxamount', v_tax + 0,
        'commrate', v_comm_rate + 0, 'chargeamount', v_charge + 0, 'acctassets', v_assets + 0));`)

var myTOF4 = myFunc(nameTOFrame4, `p_acct_id BIGINT, v_b_id BIGINT, v_symb VARCHAR(15), p_trade_type_id VARCHAR(3), p_trade_qty INT,
        v_req DOUBLE, p_type_is_margin BOOLEAN, p_exec_f_name VARCHAR(100), p_exec_l_name VARCHAR(100), v_charge DOUBLE,
        v_comm DOUBLE, p_is_lifo BOOLEAN, v_is_mrkt BOOLEAN, v_status VARCHAR(4), p_now DATETIME(6)`, myWrites, `
    DECLARE v_t_id BIGINT;`, myTOFrame4+`
    RETURN CONCAT('R', JSON_OBJECT('tradeid', v_t_id + 0));`)

// Trade-Result's frames.
var myTRFrame1 = myInto(`SELECT t_ca_id, t_tt_id, t_s_symb, t_qty, t_chrg, t_lifo, t_is_cash
      INTO v_acct_id, v_tt_id, v_symb, v_qty, v_charge, v_lifo, v_is_cash
      FROM trade WHERE t_id = p_trade_id FOR UPDATE;`) + myNF("trade", "p_trade_id") +
	myInto(`SELECT tt_name, tt_is_sell, tt_is_mrkt INTO v_tt_name, v_is_sell, v_is_mrkt FROM trade_type WHERE tt_id = v_tt_id;`) +
	myNF("trade_type", "v_tt_id") +
	myInto(`SELECT hs_qty INTO v_hs FROM holding_summary WHERE hs_ca_id = v_acct_id AND hs_s_symb = v_symb;`) + `
    IF v_found = 0 THEN
        SET v_hs = 0;
    END IF;`

const myTRFrame1Decl = `
    DECLARE v_acct_id BIGINT;
    DECLARE v_tt_id VARCHAR(3);
    DECLARE v_symb VARCHAR(15);
    DECLARE v_qty, v_hs INT;
    DECLARE v_charge DOUBLE;
    DECLARE v_lifo, v_is_cash, v_is_sell, v_is_mrkt BOOLEAN;
    DECLARE v_tt_name VARCHAR(12);`

const myTRFrame2Decl = `
    DECLARE v_b_id, v_c_id BIGINT;
    DECLARE v_tax_st INT;
    DECLARE v_price DOUBLE DEFAULT p_trade_price;
    DECLARE v_sign INT DEFAULT 1;
    DECLARE v_after, v_needed, v_q, v_rest, v_new INT;
    DECLARE v_buy, v_sell DOUBLE DEFAULT 0;`

func myTRLots(label, order string) string {
	return `
            ` + label + `: FOR h IN (SELECT h_t_id, h_qty, h_price FROM holding WHERE h_ca_id = v_acct_id AND h_s_symb = v_symb
                                   ORDER BY ` + order + ` FOR UPDATE) DO
                IF v_needed = 0 THEN
                    LEAVE ` + label + `;
                END IF;
                SET v_q = LEAST(h.h_qty * v_sign, v_needed);
                SET v_rest = h.h_qty - v_q * v_sign;
                INSERT INTO holding_history (hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty) VALUES (h.h_t_id, p_trade_id, h.h_qty, v_rest);
                IF v_rest <> 0 THEN
                    UPDATE holding SET h_qty = v_rest WHERE h_t_id = h.h_t_id;
                ELSE
                    DELETE FROM holding WHERE h_t_id = h.h_t_id;
                END IF;
                IF v_is_sell THEN
                    SET v_buy = v_buy + CAST(v_q AS DOUBLE) * CAST(h.h_price AS DOUBLE);
                    SET v_sell = v_sell + CAST(v_q AS DOUBLE) * v_price;
                ELSE
                    SET v_sell = v_sell + CAST(v_q AS DOUBLE) * CAST(h.h_price AS DOUBLE);
                    SET v_buy = v_buy + CAST(v_q AS DOUBLE) * v_price;
                END IF;
                SET v_needed = v_needed - v_q;
            END FOR ` + label + `;`
}

var myTRFrame2 = myInto(`SELECT ca_b_id, ca_c_id, ca_tax_st INTO v_b_id, v_c_id, v_tax_st FROM customer_account WHERE ca_id = v_acct_id FOR UPDATE;`) +
	myNF("customer_account", "v_acct_id") + `
    SET v_after = v_hs + v_qty;
    IF v_is_sell THEN
        SET v_after = v_hs - v_qty;
    ELSE
        SET v_sign = -1;
    END IF;
    IF v_hs = 0 THEN
        INSERT INTO holding_summary (hs_ca_id, hs_s_symb, hs_qty) VALUES (v_acct_id, v_symb, v_after);
    ELSEIF v_after <> 0 THEN
        UPDATE holding_summary SET hs_qty = v_after WHERE hs_ca_id = v_acct_id AND hs_s_symb = v_symb;
    END IF;
    SET v_needed = v_qty;
    IF v_hs * v_sign > 0 THEN
        IF v_lifo THEN` + myTRLots("lifo", "h_dts DESC, h_t_id DESC") + `
        ELSE` + myTRLots("fifo", "h_dts, h_t_id") + `
        END IF;
    END IF;
    IF v_needed > 0 THEN
        SET v_new = IF(v_is_sell, -v_needed, v_needed);
        INSERT INTO holding_history (hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty) VALUES (p_trade_id, p_trade_id, 0, v_new);
        INSERT INTO holding (h_t_id, h_ca_id, h_s_symb, h_dts, h_price, h_qty)
        VALUES (p_trade_id, v_acct_id, v_symb, p_now, p_trade_price, v_new);
        IF v_is_sell THEN
            SET v_sell = v_sell + CAST(v_needed AS DOUBLE) * v_price;
        ELSE
            SET v_buy = v_buy + CAST(v_needed AS DOUBLE) * v_price;
        END IF;
    END IF;
    IF v_hs <> 0 AND v_after = 0 THEN
        DELETE FROM holding_summary WHERE hs_ca_id = v_acct_id AND hs_s_symb = v_symb;
    END IF;`

var myTRFrame3 = `
    SELECT COALESCE(SUM(tx_rate), 0) INTO v_rate FROM taxrate, customer_taxrate WHERE cx_c_id = v_c_id AND tx_id = cx_tx_id;
    SET v_tax = (v_sell - v_buy) * v_rate;
    SET v_tax = ` + myR2("v_tax") + `;
    UPDATE trade SET t_tax = v_tax WHERE t_id = p_trade_id;`

func myTRFrame4(nf func(string, ...string) string) string {
	return myInto(`SELECT s_ex_id, s_name INTO v_ex_id, v_s_name FROM security WHERE s_symb = v_symb;`) + nf("security", "v_symb") +
		myInto(`SELECT c_tier INTO v_tier FROM customer WHERE c_id = v_c_id;`) + nf("customer", "v_c_id") +
		myInto(`SELECT cr_rate INTO v_comm_rate FROM commission_rate
     WHERE cr_c_tier = v_tier AND cr_tt_id = v_tt_id AND cr_ex_id = v_ex_id AND cr_from_qty <= v_qty AND cr_to_qty >= v_qty;`) +
		nf("commission_rate", "v_tier", "v_tt_id", "v_ex_id", "v_qty")
}

const myTRFrame5 = `
    UPDATE trade SET t_comm = v_comm, t_dts = p_now, t_st_id = 'CMPT', t_trade_price = p_trade_price WHERE t_id = p_trade_id;
    INSERT INTO trade_history (th_t_id, th_dts, th_st_id) VALUES (p_trade_id, p_now, 'CMPT');
    UPDATE broker SET b_comm_total = b_comm_total + v_comm, b_num_trades = b_num_trades + 1 WHERE b_id = v_b_id;`

func myTRFrame6(nf func(string, ...string) string) string {
	return `
    INSERT INTO settlement (se_t_id, se_cash_type, se_cash_due_date, se_amt) VALUES (p_trade_id, v_cash_type, v_due, v_settle);
    IF v_is_cash THEN
        UPDATE customer_account SET ca_bal = ca_bal + v_settle WHERE ca_id = v_acct_id;
        INSERT INTO cash_transaction (ct_t_id, ct_dts, ct_amt, ct_name) VALUES (p_trade_id, p_now, v_settle, v_name);
    END IF;` + myInto(`SELECT ca_bal INTO v_bal FROM customer_account WHERE ca_id = v_acct_id;`) + nf("customer_account", "v_acct_id")
}

var myTradeResult = myFunc(nameTradeResult, `p_trade_id BIGINT, p_trade_price DOUBLE, p_now DATETIME(6)`, myWrites,
	myTRFrame1Decl+myTRFrame2Decl+`
    DECLARE v_rate, v_comm_rate, v_comm, v_value, v_settle DOUBLE;
    DECLARE v_tax DOUBLE DEFAULT 0;
    DECLARE v_ex_id VARCHAR(6);
    DECLARE v_s_name VARCHAR(100);
    DECLARE v_tier INT;
    DECLARE v_due DATE;
    DECLARE v_cash_type VARCHAR(40);
    DECLARE v_name VARCHAR(100);
    DECLARE v_bal DECIMAL(12, 2);`, myTRFrame1+myTRFrame2+`
    IF v_tax_st IN (1, 2) AND v_sell > v_buy THEN`+myTRFrame3+`
    END IF;`+myTRFrame4(myRaiseNF)+`
    SET v_comm = v_comm_rate / 100 * v_qty * v_price;
    SET v_comm = `+myR2("v_comm")+`;`+myTRFrame5+`
    SET v_value = CAST(v_qty AS DOUBLE) * v_price;
    SET v_value = `+myR2("v_value")+`;
    IF v_is_sell THEN
        SET v_settle = v_value - v_charge - v_comm;
    ELSE
        SET v_settle = -(v_value + v_charge + v_comm);
    END IF;
    IF v_tax_st = 1 THEN
        SET v_settle = v_settle - v_tax;
    END IF;
    SET v_settle = `+myR2("v_settle")+`;
    SET v_due = DATE(p_now) + INTERVAL 2 DAY;
    SET v_cash_type = IF(v_is_cash, 'Cash Account', 'Margin');
    SET v_name = LEFT(CONCAT(v_tt_name, ' ', v_qty, ' shares of ', v_s_name), 100);`+myTRFrame6(myRaiseNF)+`
    RETURN CONCAT('R', JSON_OBJECT('acctid', v_acct_id + 0, 'acctbal', v_bal + 0, 'brokerid', v_b_id + 0, 'buyvalue', v_buy + 0,
        'sellvalue', v_sell + 0, 'taxamount', v_tax + 0, 'commamount', v_comm + 0, 'settleamt', v_settle + 0,
        'settledue', `+myTS("v_due")+`));`)

var myTRF1 = myFunc(nameTRFrame1, `p_trade_id BIGINT`, myWrites, myTRFrame1Decl, myTRFrame1+`
    RETURN CONCAT('R', JSON_OBJECT('acctid', v_acct_id + 0, 'typeid', v_tt_id, 'symbol', v_symb, 'qty', v_qty + 0,
        'charge', v_charge + 0, 'lifo', IF(v_lifo, TRUE, FALSE), 'iscash', IF(v_is_cash, TRUE, FALSE), 'typename', v_tt_name,
        'issell', IF(v_is_sell, TRUE, FALSE), 'ismarket', IF(v_is_mrkt, TRUE, FALSE), 'hsqty', v_hs + 0));`)

var myTRF2 = myFunc(nameTRFrame2, `p_trade_id BIGINT, p_trade_price DOUBLE, p_now DATETIME(6), v_acct_id BIGINT,
        v_symb VARCHAR(15), v_qty INT, v_is_sell BOOLEAN, v_lifo BOOLEAN, v_hs INT`, myWrites, myTRFrame2Decl, myTRFrame2+`
    RETURN CONCAT('R', JSON_OBJECT('brokerid', v_b_id + 0, 'custid', v_c_id + 0, 'taxstatus', v_tax_st + 0,
        'buyvalue', v_buy + 0, 'sellvalue', v_sell + 0));`)

var myTRF3 = myFunc(nameTRFrame3, `p_trade_id BIGINT, v_c_id BIGINT, v_buy DOUBLE, v_sell DOUBLE`, myWrites, `
    DECLARE v_rate, v_tax DOUBLE;`, myTRFrame3+`
    RETURN CONCAT('R', JSON_OBJECT('taxamount', v_tax + 0));`)

var myTRF4 = myFunc(nameTRFrame4, `v_symb VARCHAR(15), v_c_id BIGINT, v_tt_id VARCHAR(3), v_qty INT`, myReads, `
    DECLARE v_ex_id VARCHAR(6);
    DECLARE v_s_name VARCHAR(100);
    DECLARE v_tier INT;
    DECLARE v_comm_rate DOUBLE;`, myTRFrame4(myNF)+`
    RETURN CONCAT('R', JSON_OBJECT('secname', v_s_name, 'commrate', v_comm_rate + 0));`)

var myTRF5 = myFunc(nameTRFrame5, `p_trade_id BIGINT, v_comm DOUBLE, p_now DATETIME(6), p_trade_price DOUBLE, v_b_id BIGINT`, myWrites, ``,
	myTRFrame5+`
    RETURN 'R{}';`)

var myTRF6 = myFunc(nameTRFrame6, `p_trade_id BIGINT, v_acct_id BIGINT, v_cash_type VARCHAR(40), v_due DATE, v_settle DOUBLE,
        v_is_cash BOOLEAN, v_name VARCHAR(100), p_now DATETIME(6)`, myWrites, `
    DECLARE v_bal DECIMAL(12, 2);`, myTRFrame6(myNF)+`
    RETURN CONCAT('R', JSON_OBJECT('acctbal', v_bal + 0));`)

// myMFCond are the trade requests a ticker entry triggers.
const myMFCond = `tr_s_symb = p_symbol AND ((tr_tt_id = 'TSL' AND tr_bid_price >= p_price)
           OR (tr_tt_id = 'TLS' AND tr_bid_price <= p_price) OR (tr_tt_id = 'TLB' AND tr_bid_price >= p_price))`

var myMarketFeed = myFunc(nameMarketFeed, `p_symbol VARCHAR(15), p_price DOUBLE, p_qty BIGINT, p_now DATETIME(6)`, myWrites, `
    DECLARE v_n INT;
    DECLARE v_hits LONGTEXT;`, `
    UPDATE last_trade SET lt_price = p_price, lt_vol = lt_vol + p_qty, lt_dts = p_now WHERE lt_s_symb = p_symbol;
    SELECT COUNT(*) INTO v_n FROM trade_request WHERE `+myMFCond+` FOR UPDATE;
    IF v_n = 0 THEN
        RETURN 'Rnull';
    END IF;
    SET v_hits = (SELECT JSON_ARRAYAGG(JSON_OBJECT('tradeid', tr_t_id, 'symbol', tr_s_symb, 'typeid', tr_tt_id, 'qty', tr_qty,
            'bidprice', tr_bid_price) ORDER BY tr_t_id)
        FROM trade_request WHERE `+myMFCond+`);
    UPDATE trade_request STRAIGHT_JOIN trade ON t_id = tr_t_id SET t_dts = p_now, t_st_id = 'SBMT' WHERE `+myMFCond+`;
    INSERT INTO trade_history (th_t_id, th_dts, th_st_id) SELECT tr_t_id, p_now, 'SBMT' FROM trade_request WHERE `+myMFCond+`;
    DELETE FROM trade_request WHERE `+myMFCond+`;
    RETURN CONCAT('R', COALESCE(v_hits, 'null'));`)

var myTradeCleanup = myFunc(nameTradeCleanup, `p_start_trade_id BIGINT, p_now DATETIME(6)`, myWrites, `
    DECLARE v_n, v_k BIGINT DEFAULT 0;`, `
    INSERT INTO trade_history (th_t_id, th_dts, th_st_id) SELECT tr_t_id, p_now, 'SBMT' FROM trade_request;
    UPDATE trade_request STRAIGHT_JOIN trade ON t_id = tr_t_id SET t_st_id = 'CNCL', t_dts = p_now + INTERVAL 1 MICROSECOND;
    INSERT INTO trade_history (th_t_id, th_dts, th_st_id) SELECT tr_t_id, p_now + INTERVAL 1 MICROSECOND, 'CNCL' FROM trade_request;
    DELETE FROM trade_request;
    SET v_n = ROW_COUNT();
    INSERT INTO trade_history (th_t_id, th_dts, th_st_id)
    SELECT t_id, p_now, 'CNCL' FROM trade WHERE t_id >= p_start_trade_id AND t_st_id = 'SBMT';
    UPDATE trade SET t_st_id = 'CNCL', t_dts = p_now WHERE t_id >= p_start_trade_id AND t_st_id = 'SBMT';
    SET v_k = ROW_COUNT();
    RETURN CONCAT('R', v_n + v_k);`)

var myDataMaintenance = myFunc(nameDataMaintenance, `p_table VARCHAR(30), p_acct_id BIGINT, p_c_id BIGINT, p_co_id BIGINT,
        p_tx_id VARCHAR(4), p_symbol VARCHAR(15), p_day_of_month INT, p_vol_incr BIGINT, p_now DATETIME(6)`, myWrites, `
    DECLARE v_s, v_t VARCHAR(200);
    DECLARE v_id, v_off BIGINT;
    DECLARE v_d DATE;
    DECLARE v_n BIGINT DEFAULT 0;
    DECLARE v_shift INT;
    DECLARE v_stamp VARCHAR(60);`, `
    CASE p_table
    WHEN 'account_permission' THEN`+myInto(`SELECT ap_acl INTO v_s FROM account_permission WHERE ap_ca_id = p_acct_id ORDER BY ap_acl DESC LIMIT 1;`)+
	myNF("account_permission", "p_acct_id")+`
        UPDATE account_permission SET ap_acl = IF(v_s = '1111', '0011', '1111') WHERE ap_ca_id = p_acct_id AND ap_acl = v_s;
        SET v_n = ROW_COUNT();
    WHEN 'address' THEN
        IF p_c_id <> 0 THEN`+myInto(`SELECT c_ad_id INTO v_id FROM customer WHERE c_id = p_c_id;`)+myNF("customer", "p_c_id")+`
        ELSE`+myInto(`SELECT co_ad_id INTO v_id FROM company WHERE co_id = p_co_id;`)+myNF("company", "p_co_id")+`
        END IF;`+myInto(`SELECT ad_line2 INTO v_s FROM address WHERE ad_id = v_id;`)+myNF("address", "v_id")+`
        UPDATE address SET ad_line2 = IF(COALESCE(v_s, '') = 'Apt. 10C', 'Apt. 22', 'Apt. 10C') WHERE ad_id = v_id;
        SET v_n = ROW_COUNT();
    WHEN 'company' THEN`+myInto(`SELECT co_sp_rate INTO v_s FROM company WHERE co_id = p_co_id;`)+myNF("company", "p_co_id")+`
        UPDATE company SET co_sp_rate = IF(v_s = 'ABA', 'AAA', 'ABA') WHERE co_id = p_co_id;
        SET v_n = ROW_COUNT();
    WHEN 'customer' THEN`+myInto(`SELECT c_email_2 INTO v_s FROM customer WHERE c_id = p_c_id;`)+myNF("customer", "p_c_id")+`
        IF LOCATE('@', COALESCE(v_s, '')) > 0 THEN
            SET v_t = SUBSTRING(v_s, LOCATE('@', v_s) + 1);
            UPDATE customer SET c_email_2 = CONCAT(SUBSTRING_INDEX(v_s, '@', 1), '@',
                   IF(v_t = 'mindspring.com', 'earthlink.com', 'mindspring.com'))
             WHERE c_id = p_c_id;
            SET v_n = ROW_COUNT();
        END IF;
    WHEN 'customer_taxrate' THEN`+myInto(`SELECT cx_tx_id INTO v_s FROM customer_taxrate WHERE cx_c_id = p_c_id AND cx_tx_id LIKE 'US%' LIMIT 1;`)+
	myNF("customer_taxrate", "p_c_id")+`
        SET v_t = IF(CHAR_LENGTH(v_s) = 3 AND SUBSTRING(v_s, 3, 1) BETWEEN '1' AND '4',
                     CONCAT('US', SUBSTRING(v_s, 3, 1) + 1), 'US1');
        UPDATE customer_taxrate SET cx_tx_id = v_t WHERE cx_c_id = p_c_id AND cx_tx_id = v_s;
        SET v_n = ROW_COUNT();
    WHEN 'daily_market' THEN
        UPDATE daily_market SET dm_vol = dm_vol + p_vol_incr WHERE dm_s_symb = p_symbol AND DAYOFMONTH(dm_date) = p_day_of_month;
        SET v_n = ROW_COUNT();
    WHEN 'exchange' THEN
        SET v_stamp = CONCAT(' LAST UPDATED ', DATE_FORMAT(p_now, '%Y-%m-%d %H:%i:%s.%f'));
        UPDATE exchange SET ex_desc = CONCAT(LEFT(SUBSTRING_INDEX(COALESCE(ex_desc, ''), ' LAST UPDATED ', 1), 150 - CHAR_LENGTH(v_stamp)), v_stamp);
        SET v_n = ROW_COUNT();
    WHEN 'financial' THEN
        SET v_shift = IF(EXISTS (SELECT 1 FROM financial WHERE fi_co_id = p_co_id AND DAYOFMONTH(fi_qtr_start_date) = 1), 1, -1);
        UPDATE financial SET fi_qtr_start_date = fi_qtr_start_date + INTERVAL v_shift DAY WHERE fi_co_id = p_co_id;
        SET v_n = ROW_COUNT();
    WHEN 'news_item' THEN
        UPDATE news_xref STRAIGHT_JOIN news_item ON ni_id = nx_ni_id SET ni_dts = ni_dts + INTERVAL 1 DAY WHERE nx_co_id = p_co_id;
        SET v_n = ROW_COUNT();
    WHEN 'security' THEN`+myInto(`SELECT s_exch_date INTO v_d FROM security WHERE s_symb = p_symbol;`)+myNF("security", "p_symbol")+`
        UPDATE security SET s_exch_date = v_d + INTERVAL 1 DAY WHERE s_symb = p_symbol;
        SET v_n = ROW_COUNT();
    WHEN 'taxrate' THEN`+myInto(`SELECT tx_name INTO v_s FROM taxrate WHERE tx_id = p_tx_id;`)+myNF("taxrate", "p_tx_id")+`
        SET v_t = IF(LOCATE(BINARY ' Tax ', v_s) > 0, `+myReplace1("v_s", "' Tax '", "' tax '")+`, `+myReplace1("v_s", "' tax '", "' Tax '")+`);
        UPDATE taxrate SET tx_name = v_t WHERE tx_id = p_tx_id;
        SET v_n = ROW_COUNT();
    WHEN 'watch_item' THEN`+myInto(`SELECT wl_id INTO v_id FROM watch_list WHERE wl_c_id = p_c_id;`)+myNF("watch_list", "p_c_id")+`
        SELECT (COUNT(*) - 1) DIV 2 INTO v_off FROM watch_item WHERE wi_wl_id = v_id;
        IF v_off < 0 THEN
            RETURN 'R0';
        END IF;
        SELECT wi_s_symb INTO v_s FROM watch_item WHERE wi_wl_id = v_id ORDER BY wi_s_symb LIMIT v_off, 1;`+myInto(`SELECT s_symb INTO v_t FROM security WHERE s_symb > v_s
           AND s_symb NOT IN (SELECT wi_s_symb FROM watch_item WHERE wi_wl_id = v_id) ORDER BY s_symb LIMIT 1;`)+`
        IF v_found = 0 THEN`+myInto(`SELECT s_symb INTO v_t FROM security
             WHERE s_symb NOT IN (SELECT wi_s_symb FROM watch_item WHERE wi_wl_id = v_id) ORDER BY s_symb LIMIT 1;`)+myNF("security", "v_id")+`
        END IF;
        UPDATE watch_item SET wi_s_symb = v_t WHERE wi_wl_id = v_id AND wi_s_symb = v_s;
        SET v_n = ROW_COUNT();
    ELSE
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'tpce: data-maintenance of an unknown table';
    END CASE;
    RETURN CONCAT('R', v_n);`)

// mySources are the CREATE FUNCTION texts by name.
var mySources = map[string]string{
	nameLookupTrades: myLookupTrades,
	nameTradeStatus:  myTradeStatus, nameBrokerVolume: myBrokerVolume,
	nameCustomerPosition: myCustomerPosition, nameCPFrame1: myCPF1, nameCPFrame2: myCPF2,
	nameMarketWatch: myMarketWatch, nameSecurityDetail: mySecurityDetail,
	nameTradeLookup: myTradeLookup, nameTradeUpdate: myTradeUpdate,
	nameTradeOrder: myTradeOrder, nameTOFrame1: myTOF1, nameTOFrame2: myTOF2, nameTOFrame3: myTOF3, nameTOFrame4: myTOF4,
	nameTradeResult: myTradeResult, nameTRFrame1: myTRF1, nameTRFrame2: myTRF2, nameTRFrame3: myTRF3,
	nameTRFrame4: myTRF4, nameTRFrame5: myTRF5, nameTRFrame6: myTRF6,
	nameMarketFeed: myMarketFeed, nameTradeCleanup: myTradeCleanup, nameDataMaintenance: myDataMaintenance,
}

// isMariaDB reports whether c's server is MariaDB.
func isMariaDB(ctx context.Context, c engine.SQLConn) (bool, error) {
	var v string
	if err := c.QueryRow(ctx, "SELECT VERSION()", nil, &v); err != nil {
		return false, err
	}
	return strings.Contains(strings.ToLower(v), "mariadb"), nil
}

// mariaDBOnly refuses MySQL, which lacks what the functions use.
func mariaDBOnly(ctx context.Context, c engine.SQLConn) error {
	ok, err := isMariaDB(ctx, c)
	if err == nil && !ok {
		err = fmt.Errorf("%w: tpce's server functions need MariaDB, not MySQL", ErrUnsupported)
	}
	return err
}

// myResult reads a function's "M…" or "R…".
func myResult(ctx context.Context, st engine.Stmt, args []any) (string, string, error) {
	var r sql.NullString
	if err := st.QueryRow(ctx, args, &r); err != nil {
		return "", "", err
	}
	switch {
	case strings.HasPrefix(r.String, "M"):
		return r.String[1:], "", nil
	case strings.HasPrefix(r.String, "R"):
		return "", r.String[1:], nil
	}
	return "", "", fmt.Errorf("unexpected result %.40q", r.String)
}
