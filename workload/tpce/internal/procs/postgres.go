package procs

import (
	"context"
	"database/sql"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/sqlproc"
)

// The PostgreSQL flavor is the PL/pgSQL form of the transactions.
//
// Every function has two OUT parameters: missing, the row a frame needed
// and did not find (NULL when all were there), and result, the frame's or
// transaction's output as JSON text whose keys are the names of the txn
// package's output fields in lower case. Times are written as RFC 3339 in
// UTC (tpce_ts), money and prices as the columns' numeric values, and the
// client-side arithmetic (sums of lots, taxes, commissions, settlements)
// in double precision in the order the txn package does it, so that the
// three modes return the same figures.
//
// A transaction function that finds a row missing after it has written
// raises an exception instead, which fails the call and with it the
// transaction.
func init() {
	flavors.Register(engine.KindPostgres, flavor{inst: sqlproc.Postgres{}, sources: pgSources, call: pgCall, result: pgResult})
}

// pgNF returns early with missing set to what and the values of exprs,
// when the last SELECT … INTO found no row.
func pgNF(what string, exprs ...string) string {
	return `
    IF NOT FOUND THEN
        missing := '` + what + ` [' || concat_ws(' ', ` + strings.Join(exprs, ", ") + `) || ']';
        RETURN;
    END IF;`
}

// pgRaiseNF raises no_data_found naming what: a row missing after the
// transaction has written.
func pgRaiseNF(what string, exprs ...string) string {
	return `
    IF NOT FOUND THEN
        RAISE EXCEPTION 'tpce: row not found: % [%]', '` + what + `', concat_ws(' ', ` + strings.Join(exprs, ", ") + `)
            USING ERRCODE = 'no_data_found';
    END IF;`
}

// pgFunc is the text of one CREATE FUNCTION returning (missing, result).
func pgFunc(name, params, volatility, decl, body string) string {
	if params != "" {
		params += ", "
	}
	return `CREATE FUNCTION ` + name + `(` + params + `OUT missing text, OUT result text)
    LANGUAGE plpgsql ` + volatility + ` AS $fn$
DECLARE` + decl + `
BEGIN` + body + `
END
$fn$`
}

// Helpers shared by the functions.
var pgHelpers = []fn{
	{nameTS, `CREATE FUNCTION tpce_ts(t timestamp) RETURNS text LANGUAGE sql STABLE AS
$fn$ SELECT to_char(t, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $fn$`},
	// tpce_round2 rounds to cents half away from zero, as Go's math.Round.
	{nameRound2, `CREATE FUNCTION tpce_round2(x float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS
$fn$ SELECT (CASE WHEN abs(x * 100 - trunc(x * 100)) >= 0.5 THEN trunc(x * 100) + sign(x * 100)
                  ELSE trunc(x * 100) END) / 100 $fn$`},
	// tpce_replace1 replaces the first occurrence of a in s by b.
	{nameReplace1, `CREATE FUNCTION tpce_replace1(s text, a text, b text) RETURNS text LANGUAGE sql IMMUTABLE AS
$fn$ SELECT CASE WHEN position(a IN s) = 0 THEN s
                 ELSE overlay(s PLACING b FROM position(a IN s) FOR char_length(a)) END $fn$`},
	{nameLookupTrades, pgLookupTrades},
}

// Trade-Status, one frame.
var pgTradeStatus = pgFunc(nameTradeStatus, `p_acct_id bigint`, `STABLE`, `
    v_n record;
    v_trades json;`, `
    SELECT json_agg(r) INTO v_trades FROM (
        SELECT t_id AS tradeid, tpce_ts(t_dts) AS dts, st_name AS status, tt_name AS type, t_s_symb AS symbol,
               t_qty AS qty, t_exec_name AS execname, t_chrg AS charge, s_name AS secname, ex_name AS exchange
          FROM trade, status_type, trade_type, security, exchange
         WHERE t_ca_id = p_acct_id AND st_id = t_st_id AND tt_id = t_tt_id AND s_symb = t_s_symb AND ex_id = s_ex_id
         ORDER BY t_dts DESC LIMIT 50) r;
    SELECT c_l_name, c_f_name, b_name INTO v_n FROM customer_account, customer, broker
     WHERE ca_id = p_acct_id AND c_id = ca_c_id AND b_id = ca_b_id;`+pgNF("customer_account", "p_acct_id")+`
    result := json_build_object('trades', v_trades, 'custlname', v_n.c_l_name, 'custfname', v_n.c_f_name,
        'brokername', v_n.b_name)::text;`)

// Broker-Volume, one frame; p_brokers is a JSON array of names.
var pgBrokerVolume = pgFunc(nameBrokerVolume, `p_brokers text, p_sector varchar`, `STABLE`, `
    v json;`, `
    SELECT json_agg(r) INTO v FROM (
        SELECT b_name AS broker, SUM(tr_qty * tr_bid_price) AS volume
          FROM trade_request, sector, industry, company, broker, security
         WHERE tr_b_id = b_id AND tr_s_symb = s_symb AND s_co_id = co_id AND co_in_id = in_id AND sc_id = in_sc_id
           AND b_name = ANY (ARRAY(SELECT json_array_elements_text(p_brokers::json))) AND sc_name = p_sector
         GROUP BY b_name ORDER BY volume DESC, b_name) r;
    result := coalesce(v::text, 'null');`)

// Customer-Position's frames 1 and 2.
const (
	pgCPDecl = `
    v_cust bigint := p_cust_id;
    v_c record;
    v_accts json;
    v_ids bigint[];
    v_hist json;`
	pgCPFrame1 = `
    IF v_cust = 0 THEN
        SELECT c_id INTO v_cust FROM customer WHERE c_tax_id = p_tax_id;` + `
        IF NOT FOUND THEN
            missing := 'customer by tax id [' || p_tax_id || ']';
            RETURN;
        END IF;
    END IF;
    SELECT c_l_name, c_f_name, c_tier, c_tax_id INTO v_c FROM customer WHERE c_id = v_cust;`
	pgCPFrame1Tail = `
    SELECT json_agg(json_build_object('acctid', ca_id, 'cashbal', ca_bal, 'assetstot', assets)), array_agg(ca_id)
      INTO v_accts, v_ids
      FROM (SELECT ca_id, ca_bal, COALESCE(SUM(hs_qty * lt_price), 0) AS assets
              FROM customer_account LEFT JOIN holding_summary ON hs_ca_id = ca_id
                   LEFT JOIN last_trade ON lt_s_symb = hs_s_symb
             WHERE ca_c_id = v_cust GROUP BY ca_id, ca_bal ORDER BY assets ASC, ca_id LIMIT 10) a;`
	pgCPFrame2 = `
    SELECT json_agg(h) INTO v_hist FROM (
        SELECT t_id AS tradeid, t_s_symb AS symbol, t_qty AS qty, st_name AS status, tpce_ts(th_dts) AS dts
          FROM (SELECT t_id AS id FROM trade WHERE t_ca_id = v_acct ORDER BY t_dts DESC LIMIT 10) t10,
               trade, trade_history, status_type
         WHERE t_id = id AND th_t_id = t_id AND st_id = th_st_id
         ORDER BY th_dts DESC LIMIT 30) h;`
	pgCPResult = `
    result := json_build_object('custid', v_cust, 'lname', v_c.c_l_name, 'fname', v_c.c_f_name,
        'taxid', v_c.c_tax_id, 'tier', v_c.c_tier, 'accounts', v_accts, 'history', v_hist)::text;`
)

var pgCustomerPosition = pgFunc(nameCustomerPosition,
	`p_cust_id bigint, p_tax_id varchar, p_get_history boolean, p_acct_idx integer`, `STABLE`, pgCPDecl+`
    v_acct bigint;`, pgCPFrame1+pgNF("customer", "v_cust")+pgCPFrame1Tail+`
    IF p_get_history AND v_ids IS NOT NULL THEN
        v_acct := v_ids[1 + p_acct_idx % cardinality(v_ids)];`+pgCPFrame2+`
    END IF;`+pgCPResult)

var pgCPF1 = pgFunc(nameCPFrame1, `p_cust_id bigint, p_tax_id varchar`, `STABLE`, pgCPDecl,
	pgCPFrame1+pgNF("customer", "v_cust")+pgCPFrame1Tail+pgCPResult)

var pgCPF2 = pgFunc(nameCPFrame2, `v_acct bigint`, `STABLE`, `
    v_hist json;`, pgCPFrame2+`
    result := json_build_object('history', v_hist)::text;`)

// Market-Watch, one frame.
func pgMWLoop(src string) string {
	return `
        FOR r IN ` + src + ` LOOP
            FOR p IN SELECT lt_price, s_num_out, dm_close FROM last_trade, security, daily_market
                      WHERE lt_s_symb = r.s AND s_symb = lt_s_symb AND dm_s_symb = lt_s_symb AND dm_date = p_start_day LOOP
                v_n := v_n + 1;
                v_new := v_new + p.s_num_out::float8 * p.lt_price::float8;
                v_old := v_old + p.s_num_out::float8 * p.dm_close::float8;
            END LOOP;
        END LOOP;`
}

var pgMarketWatch = pgFunc(nameMarketWatch,
	`p_acct_id bigint, p_cust_id bigint, p_industry varchar, p_start_co bigint, p_end_co bigint, p_start_day date`, `STABLE`, `
    r record;
    p record;
    v_n integer := 0;
    v_old float8 := 0;
    v_new float8 := 0;
    v_pct float8 := 0;`, `
    IF p_cust_id <> 0 THEN`+pgMWLoop(`SELECT wi_s_symb AS s FROM watch_item, watch_list WHERE wl_c_id = p_cust_id AND wi_wl_id = wl_id`)+`
    ELSIF p_industry <> '' THEN`+pgMWLoop(`SELECT s_symb AS s FROM industry, company, security
                  WHERE in_name = p_industry AND co_in_id = in_id AND co_id BETWEEN p_start_co AND p_end_co AND s_co_id = co_id`)+`
    ELSIF p_acct_id <> 0 THEN`+pgMWLoop(`SELECT hs_s_symb AS s FROM holding_summary WHERE hs_ca_id = p_acct_id`)+`
    ELSE
        RAISE EXCEPTION 'tpce: market-watch needs a customer, an industry or an account' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_old <> 0 THEN
        v_pct := 100 * (v_new / v_old - 1);
    END IF;
    result := json_build_object('pctchange', v_pct, 'symbols', v_n)::text;`)

// Security-Detail, one frame.
var pgSecurityDetail = pgFunc(nameSecurityDetail,
	`p_symbol varchar, p_max_rows integer, p_start_day date, p_access_lob boolean`, `STABLE`, `
    s record;
    l record;`, `
    SELECT s_name, co_id, co_name, co_sp_rate, co_ceo, co_desc, co_open_date,
           ca.ad_line1 AS co_ad, zca.zc_town AS co_town, zca.zc_div AS co_div, ca.ad_zc_code AS co_zip,
           s_num_out, s_start_date, s_exch_date, s_pe, s_52wk_high, s_52wk_high_date, s_52wk_low, s_52wk_low_date,
           s_dividend, s_yield, ex_name, ea.ad_line1 AS ex_ad, zea.zc_town AS ex_town, ea.ad_zc_code AS ex_zip,
           ex_open, ex_close, ex_num_symb
      INTO s
      FROM security, company, address ca, address ea, zip_code zca, zip_code zea, exchange
     WHERE s_symb = p_symbol AND co_id = s_co_id AND ca.ad_id = co_ad_id AND ex_id = s_ex_id AND ea.ad_id = ex_ad_id
       AND zca.zc_code = ca.ad_zc_code AND zea.zc_code = ea.ad_zc_code;`+pgNF("security", "p_symbol")+`
    SELECT lt_price, lt_open_price, lt_vol INTO l FROM last_trade WHERE lt_s_symb = p_symbol;`+pgNF("last_trade", "p_symbol")+`
    result := json_build_object(
        'sname', s.s_name, 'coid', s.co_id, 'coname', s.co_name, 'sprate', s.co_sp_rate, 'ceo', s.co_ceo,
        'codesc', s.co_desc, 'opendate', tpce_ts(s.co_open_date), 'coaddress', coalesce(s.co_ad, ''),
        'cotown', s.co_town, 'codiv', s.co_div, 'cozip', s.co_zip, 'numout', s.s_num_out,
        'startdate', tpce_ts(s.s_start_date), 'exchdate', tpce_ts(s.s_exch_date), 'pe', s.s_pe,
        'high52', s.s_52wk_high, 'low52', s.s_52wk_low, 'dividend', s.s_dividend, 'yield', s.s_yield,
        'high52date', tpce_ts(s.s_52wk_high_date), 'low52date', tpce_ts(s.s_52wk_low_date),
        'exname', s.ex_name, 'exaddress', coalesce(s.ex_ad, ''), 'extown', s.ex_town, 'exzip', s.ex_zip,
        'exopen', s.ex_open, 'exclose', s.ex_close, 'exnumsymb', s.ex_num_symb,
        'competitors', (SELECT json_agg(x.co_name || ' (' || x.in_name || ')') FROM (
            SELECT co_name, in_name FROM company_competitor, company, industry
             WHERE cp_co_id = s.co_id AND co_id = cp_comp_co_id AND in_id = cp_in_id ORDER BY cp_comp_co_id LIMIT 3) x),
        'financials', (SELECT json_agg(f) FROM (
            SELECT fi_year AS year, fi_qtr AS qtr, tpce_ts(fi_qtr_start_date) AS qtrstart, fi_revenue AS revenue,
                   fi_net_earn AS netearn, fi_basic_eps AS basiceps, fi_dilut_eps AS diluteps, fi_margin AS margin,
                   fi_inventory AS inventory, fi_assets AS assets, fi_liability AS liability,
                   fi_out_basic AS outbasic, fi_out_dilut AS outdilut
              FROM financial WHERE fi_co_id = s.co_id ORDER BY fi_year, fi_qtr LIMIT 20) f),
        'days', (SELECT json_agg(d) FROM (
            SELECT tpce_ts(dm_date) AS date, dm_close AS close, dm_high AS high, dm_low AS low, dm_vol AS vol
              FROM daily_market WHERE dm_s_symb = p_symbol AND dm_date >= p_start_day ORDER BY dm_date LIMIT p_max_rows) d),
        'lastprice', l.lt_price, 'openprice', l.lt_open_price, 'lastvol', l.lt_vol,
        'news', CASE WHEN p_access_lob THEN (SELECT json_agg(n) FROM (
            SELECT translate(encode(ni_item, 'base64'), E'\n', '') AS item, tpce_ts(ni_dts) AS dts,
                   ni_source AS source, coalesce(ni_author, '') AS author
              FROM news_xref, news_item WHERE ni_id = nx_ni_id AND nx_co_id = s.co_id ORDER BY ni_id LIMIT 2) n)
        ELSE (SELECT json_agg(n) FROM (
            SELECT tpce_ts(ni_dts) AS dts, ni_source AS source, coalesce(ni_author, '') AS author,
                   ni_headline AS headline, ni_summary AS summary
              FROM news_xref, news_item WHERE ni_id = nx_ni_id AND nx_co_id = s.co_id ORDER BY ni_id LIMIT 2) n) END
    )::text;`)

// pgTradesJSON is the query that turns sel's trades (columns ord, t_id,
// ca, t_dts, bid, exec, is_cash, mrkt, price, qty, tt) into the JSON
// array of txn.TradeInfo, with each trade's settlement, cash transaction
// and first three history rows.
func pgTradesJSON(sel string) string {
	return `
        SELECT json_agg(json_build_object('tradeid', s.t_id, 'acctid', s.ca, 'dts', tpce_ts(s.t_dts), 'bidprice', s.bid,
                   'execname', s.exec, 'iscash', s.is_cash, 'ismarket', s.mrkt, 'tradeprice', s.price, 'qty', s.qty,
                   'typeid', s.tt, 'settleamt', se_amt, 'settledue', tpce_ts(se_cash_due_date), 'cashtype', se_cash_type,
                   'cashamt', ct_amt, 'cashdts', tpce_ts(ct_dts), 'cashname', ct_name,
                   'histdts', h.dts, 'histstatus', h.st) ORDER BY s.ord)
          INTO trades
          FROM (` + sel + `) s
          LEFT JOIN settlement ON se_t_id = s.t_id
          LEFT JOIN cash_transaction ON s.is_cash AND ct_t_id = s.t_id
          LEFT JOIN LATERAL (SELECT json_agg(tpce_ts(x.th_dts)) AS dts, json_agg(x.th_st_id) AS st
                               FROM (SELECT th_dts, th_st_id FROM trade_history WHERE th_t_id = s.t_id
                                      ORDER BY th_dts LIMIT 3) x) h ON true;`
}

// pgLookupTrades reads the trades of Trade-Lookup's (and Trade-Update's)
// frames 1 to 3.
var pgLookupTrades = `CREATE FUNCTION tpce_lookup_trades(p_frame integer, p_ids bigint[], p_acct_id bigint, p_symbol varchar,
        p_start timestamp, p_end timestamp, p_max integer, OUT missing text, OUT trades json)
    LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_id bigint;
BEGIN
    IF p_frame = 1 THEN` + pgTradesJSON(`
            SELECT i.ord, t_id, NULL::bigint AS ca, t_dts, t_bid_price AS bid, t_exec_name AS exec, t_is_cash AS is_cash,
                   tt_is_mrkt AS mrkt, t_trade_price AS price, NULL::integer AS qty, NULL::varchar AS tt
              FROM unnest(p_ids) WITH ORDINALITY i(id, ord), trade, trade_type
             WHERE t_id = i.id AND tt_id = t_tt_id`) + `
        IF coalesce(json_array_length(trades), 0) < coalesce(cardinality(p_ids), 0) THEN
            SELECT i.id INTO v_id FROM unnest(p_ids) WITH ORDINALITY i(id, ord)
             WHERE NOT EXISTS (SELECT 1 FROM trade WHERE t_id = i.id) ORDER BY i.ord LIMIT 1;
            missing := 'trade [' || v_id || ']';
            trades := NULL;
        END IF;
    ELSIF p_frame = 2 THEN` + pgTradesJSON(`
            SELECT row_number() OVER () AS ord, t_id, NULL::bigint AS ca, t_dts, t_bid_price AS bid, t_exec_name AS exec,
                   t_is_cash AS is_cash, NULL::boolean AS mrkt, t_trade_price AS price, NULL::integer AS qty, NULL::varchar AS tt
              FROM (SELECT t_id, t_dts, t_bid_price, t_exec_name, t_is_cash, t_trade_price FROM trade
                     WHERE t_ca_id = p_acct_id AND t_dts >= p_start AND t_dts <= p_end ORDER BY t_dts LIMIT p_max) x`) + `
    ELSIF p_frame = 3 THEN` + pgTradesJSON(`
            SELECT row_number() OVER () AS ord, t_id, t_ca_id AS ca, t_dts, NULL::numeric AS bid, t_exec_name AS exec,
                   t_is_cash AS is_cash, NULL::boolean AS mrkt, t_trade_price AS price, t_qty AS qty, t_tt_id AS tt
              FROM (SELECT t_id, t_dts, t_ca_id, t_exec_name, t_is_cash, t_trade_price, t_qty, t_tt_id FROM trade
                     WHERE t_s_symb = p_symbol AND t_dts >= p_start AND t_dts <= p_end ORDER BY t_dts LIMIT p_max) x`) + `
    ELSE
        RAISE EXCEPTION 'tpce: trade-lookup frame %, want 1 to 4', p_frame USING ERRCODE = 'invalid_parameter_value';
    END IF;
END
$fn$`

// pgLookupParams are the parameters of Trade-Lookup and Trade-Update;
// p_trade_ids is a comma-separated list.
const pgLookupParams = `p_frame integer, p_trade_ids text, p_acct_id bigint, p_symbol varchar,
        p_start timestamp, p_end timestamp, p_max integer`

const pgLookupCall = `tpce_lookup_trades(p_frame, string_to_array(p_trade_ids, ',')::bigint[], p_acct_id, p_symbol, p_start, p_end, p_max)`

// Trade-Lookup, one frame of four.
var pgTradeLookup = pgFunc(nameTradeLookup, pgLookupParams, `STABLE`, `
    lk record;
    v_first bigint;
    v_hist json;`, `
    IF p_frame = 4 THEN
        SELECT t_id INTO v_first FROM trade WHERE t_ca_id = p_acct_id AND t_dts >= p_start ORDER BY t_dts LIMIT 1;
        IF NOT FOUND THEN
            result := '{"tradeid": 0}';
            RETURN;
        END IF;
        SELECT json_agg(h) INTO v_hist FROM (
            SELECT hh_h_t_id AS holdingtradeid, hh_t_id AS tradeid, hh_before_qty AS beforeqty, hh_after_qty AS afterqty
              FROM holding_history
             WHERE hh_h_t_id IN (SELECT hh_h_t_id FROM holding_history WHERE hh_t_id = v_first)
             ORDER BY hh_h_t_id, hh_t_id LIMIT 20) h;
        result := json_build_object('tradeid', v_first, 'history', v_hist)::text;
        RETURN;
    END IF;
    SELECT * INTO lk FROM `+pgLookupCall+`;
    missing := lk.missing;
    result := json_build_object('trades', lk.trades)::text;`)

// Trade-Update, one frame of three.
var pgTradeUpdate = pgFunc(nameTradeUpdate, pgLookupParams+`, p_max_updates integer`, `VOLATILE`, `
    lk record;
    r record;
    v_upd bigint := 0;
    v_n bigint;
    v_new text;`, `
    SELECT * INTO lk FROM `+pgLookupCall+`;
    IF lk.missing IS NOT NULL THEN
        missing := lk.missing;
        RETURN;
    END IF;
    FOR r IN SELECT (e->>'tradeid')::bigint AS id, e->>'execname' AS exec, e->>'cashtype' AS cash_type,
                    (e->>'iscash')::boolean AS is_cash, e->>'cashname' AS cash_name
               FROM json_array_elements(coalesce(lk.trades, '[]')) e LOOP
        EXIT WHEN v_upd >= p_max_updates;
        IF p_frame = 1 THEN
            v_new := CASE WHEN position(' X ' IN r.exec) > 0 THEN tpce_replace1(r.exec, ' X ', ' ')
                          ELSE tpce_replace1(r.exec, ' ', ' X ') END;
            UPDATE trade SET t_exec_name = v_new WHERE t_id = r.id;
        ELSIF p_frame = 2 THEN
            CONTINUE WHEN coalesce(r.cash_type, '') = '';
            v_new := CASE r.cash_type WHEN 'Cash Account' THEN 'Cash' WHEN 'Cash' THEN 'Cash Account'
                                      WHEN 'Margin Account' THEN 'Margin' ELSE 'Margin Account' END;
            UPDATE settlement SET se_cash_type = v_new WHERE se_t_id = r.id;
        ELSE
            CONTINUE WHEN NOT r.is_cash OR coalesce(r.cash_name, '') = '';
            v_new := CASE WHEN position(' shares of ' IN r.cash_name) > 0 THEN tpce_replace1(r.cash_name, ' shares of ', ' Shares of ')
                          ELSE tpce_replace1(r.cash_name, ' Shares of ', ' shares of ') END;
            UPDATE cash_transaction SET ct_name = v_new WHERE ct_t_id = r.id;
        END IF;
        GET DIAGNOSTICS v_n = ROW_COUNT;
        v_upd := v_upd + v_n;
    END LOOP;
    SELECT * INTO lk FROM `+pgLookupCall+`;
    result := json_build_object('trades', lk.trades, 'updated', v_upd)::text;`)

// Trade-Order's frames. The procedure runs them in one function; in frames
// mode each is its own function, the values one frame passes the next
// being parameters named as the procedure's variables.
const (
	pgTOFrame1 = `
    SELECT ca_b_id, ca_c_id, ca_tax_st INTO v_b_id, v_c_id, v_tax_st FROM customer_account WHERE ca_id = p_acct_id;` +
		`
    IF NOT FOUND THEN
        missing := 'customer_account [' || p_acct_id || ']';
        RETURN;
    END IF;
    SELECT c_f_name, c_l_name, c_tier, c_tax_id INTO v_f_name, v_l_name, v_tier, v_tax_id FROM customer WHERE c_id = v_c_id;
    IF NOT FOUND THEN
        missing := 'customer [' || v_c_id || ']';
        RETURN;
    END IF;
    SELECT b_name INTO v_b_name FROM broker WHERE b_id = v_b_id;
    IF NOT FOUND THEN
        missing := 'broker [' || v_b_id || ']';
        RETURN;
    END IF;`
	pgTOFrame2 = `
        SELECT ap_acl INTO v_acl FROM account_permission
         WHERE ap_ca_id = p_acct_id AND ap_f_name = p_exec_f_name AND ap_l_name = p_exec_l_name AND ap_tax_id = p_exec_tax_id;
        IF NOT FOUND THEN
            result := '{"noperm": true}';
            RETURN;
        END IF;`
	pgTOFrame3Decl = `
    v_co_id bigint;
    v_co_name varchar;
    v_ex_id varchar;
    v_s_name varchar;
    v_symb varchar := p_symbol;
    v_market float8;
    v_is_mrkt boolean;
    v_is_sell boolean;
    v_req float8 := p_requested_price::float8;
    v_hs integer;
    v_needed integer := p_trade_qty;
    v_sign integer;
    v_q integer;
    h record;
    v_buy float8 := 0;
    v_sell float8 := 0;
    v_rate float8;
    v_tax float8 := 0;
    v_comm_rate float8;
    v_charge float8;
    v_bal float8;
    v_held float8;
    v_assets float8 := 0;`
)

// pgTOLots walks the lots of Trade-Order's frame 3 in one order.
func pgTOLots(order string) string {
	return `
            FOR h IN SELECT h_qty, h_price FROM holding WHERE h_ca_id = p_acct_id AND h_s_symb = v_symb ORDER BY ` + order + ` LOOP
                EXIT WHEN v_needed = 0;
                v_q := least(v_sign * h.h_qty, v_needed);
                v_buy := v_buy + v_q::float8 * h.h_price::float8;
                v_sell := v_sell + v_q::float8 * v_req;
                v_needed := v_needed - v_q;
            END LOOP;`
}

var pgTOFrame3 = `
    IF p_symbol = '' THEN
        SELECT co_id INTO v_co_id FROM company WHERE co_name = p_co_name;` + pgNF("company", "p_co_name") + `
        SELECT s_ex_id, s_name, s_symb INTO v_ex_id, v_s_name, v_symb FROM security WHERE s_co_id = v_co_id AND s_issue = p_issue;` +
	pgNF("security", "v_co_id", "p_issue") + `
    ELSE
        SELECT s_co_id, s_ex_id, s_name INTO v_co_id, v_ex_id, v_s_name FROM security WHERE s_symb = p_symbol;` + pgNF("security", "p_symbol") + `
        SELECT co_name INTO v_co_name FROM company WHERE co_id = v_co_id;` + pgNF("company", "v_co_id") + `
    END IF;
    SELECT lt_price INTO v_market FROM last_trade WHERE lt_s_symb = v_symb;` + pgNF("last_trade", "v_symb") + `
    SELECT tt_is_mrkt, tt_is_sell INTO v_is_mrkt, v_is_sell FROM trade_type WHERE tt_id = p_trade_type_id;` + pgNF("trade_type", "p_trade_type_id") + `
    IF v_is_mrkt THEN
        v_req := v_market;
    END IF;
    SELECT hs_qty INTO v_hs FROM holding_summary WHERE hs_ca_id = p_acct_id AND hs_s_symb = v_symb;
    IF NOT FOUND THEN
        v_hs := 0;
    END IF;
    IF (v_is_sell AND v_hs > 0) OR (NOT v_is_sell AND v_hs < 0) THEN
        v_sign := CASE WHEN v_is_sell THEN 1 ELSE -1 END;
        IF p_is_lifo THEN` + pgTOLots("h_dts DESC, h_t_id DESC") + `
        ELSE` + pgTOLots("h_dts, h_t_id") + `
        END IF;
    END IF;
    IF v_sell > v_buy AND v_tax_st IN (1, 2) THEN
        SELECT COALESCE(SUM(tx_rate), 0) INTO v_rate FROM taxrate, customer_taxrate WHERE cx_c_id = v_c_id AND tx_id = cx_tx_id;
        v_tax := tpce_round2((v_sell - v_buy) * v_rate);
    END IF;
    SELECT cr_rate INTO v_comm_rate FROM commission_rate
     WHERE cr_c_tier = v_tier AND cr_tt_id = p_trade_type_id AND cr_ex_id = v_ex_id
       AND cr_from_qty <= p_trade_qty AND cr_to_qty >= p_trade_qty;` + pgNF("commission_rate", "v_tier", "p_trade_type_id", "v_ex_id", "p_trade_qty") + `
    SELECT ch_chrg INTO v_charge FROM charge WHERE ch_c_tier = v_tier AND ch_tt_id = p_trade_type_id;` + pgNF("charge", "v_tier", "p_trade_type_id") + `
    IF p_type_is_margin THEN
        SELECT ca_bal INTO v_bal FROM customer_account WHERE ca_id = p_acct_id;` + pgNF("customer_account", "p_acct_id") + `
        SELECT COALESCE(SUM(hs_qty * lt_price), 0) INTO v_held FROM holding_summary, last_trade
         WHERE hs_ca_id = p_acct_id AND lt_s_symb = hs_s_symb;
        v_assets := v_bal + v_held;
    END IF;`

const pgTOFrame4 = `
    v_t_id := nextval('tpce_trade_id');
    INSERT INTO trade (t_id, t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb, t_qty, t_bid_price, t_ca_id, t_exec_name,
                       t_trade_price, t_chrg, t_comm, t_tax, t_lifo)
    VALUES (v_t_id, p_now, v_status, p_trade_type_id, NOT p_type_is_margin, v_symb, p_trade_qty, v_req::numeric, p_acct_id,
            p_exec_f_name || ' ' || p_exec_l_name, NULL, v_charge::numeric, v_comm::numeric, 0, p_is_lifo);
    IF NOT v_is_mrkt THEN
        INSERT INTO trade_request (tr_t_id, tr_tt_id, tr_s_symb, tr_qty, tr_bid_price, tr_b_id)
        VALUES (v_t_id, p_trade_type_id, v_symb, p_trade_qty, v_req::numeric, v_b_id);
    END IF;
    INSERT INTO trade_history (th_t_id, th_dts, th_st_id) VALUES (v_t_id, p_now, v_status);`

const pgTOParams = `p_acct_id bigint, p_exec_f_name varchar, p_exec_l_name varchar, p_exec_tax_id varchar, p_is_lifo boolean,
        p_co_name varchar, p_issue varchar, p_symbol varchar, p_trade_type_id varchar, p_requested_price numeric,
        p_trade_qty integer, p_type_is_margin boolean, p_now timestamp`

const pgTOFrame1Decl = `
    v_b_id bigint;
    v_c_id bigint;
    v_tax_st smallint;
    v_f_name varchar;
    v_l_name varchar;
    v_tier smallint;
    v_tax_id varchar;
    v_b_name varchar;`

const pgTOResult = `
    result := json_build_object('tradeid', v_t_id, 'symbol', v_symb, 'tradetypeid', p_trade_type_id,
        'tradeqty', p_trade_qty, 'requestedprice', v_req, 'ismarket', v_is_mrkt, 'issell', v_is_sell, 'status', v_status,
        'buyvalue', v_buy, 'sellvalue', v_sell, 'taxamount', v_tax, 'commrate', v_comm_rate, 'chargeamount', v_charge,
        'acctassets', v_assets)::text;`

var pgTradeOrder = pgFunc(nameTradeOrder, pgTOParams, `VOLATILE`, pgTOFrame1Decl+`
    v_acl varchar;`+pgTOFrame3Decl+`
    v_status varchar;
    v_t_id bigint;
    v_comm float8;`, pgTOFrame1+`
    IF p_exec_l_name <> v_l_name OR p_exec_f_name <> v_f_name OR p_exec_tax_id <> v_tax_id THEN`+pgTOFrame2+`
    END IF;`+pgTOFrame3+`
    v_status := CASE WHEN v_is_mrkt THEN 'SBMT' ELSE 'PNDG' END;
    v_comm := tpce_round2(v_comm_rate / 100 * p_trade_qty::float8 * v_req);`+pgTOFrame4+pgTOResult)

var pgTOF1 = pgFunc(nameTOFrame1, `p_acct_id bigint`, `STABLE`, pgTOFrame1Decl, pgTOFrame1+`
    result := json_build_object('brokerid', v_b_id, 'custid', v_c_id, 'taxstatus', v_tax_st, 'fname', v_f_name,
        'lname', v_l_name, 'tier', v_tier, 'taxid', v_tax_id, 'brokername', v_b_name)::text;`)

var pgTOF2 = pgFunc(nameTOFrame2, `p_acct_id bigint, p_exec_f_name varchar, p_exec_l_name varchar, p_exec_tax_id varchar`, `STABLE`, `
    v_acl varchar;`, pgTOFrame2+`
    result := json_build_object('acl', v_acl)::text;`)

var pgTOF3 = pgFunc(nameTOFrame3, `p_acct_id bigint, v_c_id bigint, v_tax_st smallint, v_tier smallint, p_is_lifo boolean,
        p_co_name varchar, p_issue varchar, p_symbol varchar, p_trade_type_id varchar, p_requested_price numeric,
        p_trade_qty integer, p_type_is_margin boolean`, `STABLE`, pgTOFrame3Decl, pgTOFrame3+`
    result := json_build_object('symbol', v_symb, 'requestedprice', v_req, 'ismarket', v_is_mrkt, 'issell', v_is_sell,
        'buyvalue', v_buy, 'sellvalue', v_sell, 'taxamount', v_tax, 'commrate', v_comm_rate, 'chargeamount', v_charge,
        'acctassets', v_assets)::text;`)

var pgTOF4 = pgFunc(nameTOFrame4, `p_acct_id bigint, v_b_id bigint, p_symbol varchar, p_trade_type_id varchar, p_trade_qty integer,
        p_requested_price numeric, p_type_is_margin boolean, p_exec_f_name varchar, p_exec_l_name varchar, p_charge numeric,
        p_comm numeric, p_is_lifo boolean, p_is_market boolean, v_status varchar, p_now timestamp`, `VOLATILE`, `
    v_t_id bigint;
    v_symb varchar := p_symbol;
    v_req numeric := p_requested_price;
    v_charge numeric := p_charge;
    v_comm numeric := p_comm;
    v_is_mrkt boolean := p_is_market;`, pgTOFrame4+`
    result := json_build_object('tradeid', v_t_id)::text;`)

// Trade-Result's frames, shared by the procedure and the frame functions
// as Trade-Order's are. nf is the check after a SELECT … INTO that must
// find a row: pgNF in the frames (the client rolls back), pgRaiseNF in
// the procedure once it has written.
const pgTRFrame1 = `
    SELECT t_ca_id, t_tt_id, t_s_symb, t_qty, t_chrg, t_lifo, t_is_cash
      INTO v_acct_id, v_tt_id, v_symb, v_qty, v_charge, v_lifo, v_is_cash
      FROM trade WHERE t_id = p_trade_id FOR UPDATE;
    IF NOT FOUND THEN
        missing := 'trade [' || p_trade_id || ']';
        RETURN;
    END IF;
    SELECT tt_name, tt_is_sell, tt_is_mrkt INTO v_tt_name, v_is_sell, v_is_mrkt FROM trade_type WHERE tt_id = v_tt_id;
    IF NOT FOUND THEN
        missing := 'trade_type [' || v_tt_id || ']';
        RETURN;
    END IF;
    SELECT hs_qty INTO v_hs FROM holding_summary WHERE hs_ca_id = v_acct_id AND hs_s_symb = v_symb;
    IF NOT FOUND THEN
        v_hs := 0;
    END IF;`

const pgTRFrame1Decl = `
    v_acct_id bigint;
    v_tt_id varchar;
    v_symb varchar;
    v_qty integer;
    v_charge float8;
    v_lifo boolean;
    v_is_cash boolean;
    v_tt_name varchar;
    v_is_sell boolean;
    v_is_mrkt boolean;
    v_hs integer;`

const pgTRFrame2Decl = `
    v_b_id bigint;
    v_c_id bigint;
    v_tax_st smallint;
    v_price float8 := p_trade_price::float8;
    v_sign integer := 1;
    v_after integer;
    v_needed integer;
    v_q integer;
    v_rest integer;
    v_new integer;
    h record;
    v_buy float8 := 0;
    v_sell float8 := 0;`

func pgTRLots(order string) string {
	return `
            FOR h IN SELECT h_t_id, h_qty, h_price FROM holding WHERE h_ca_id = v_acct_id AND h_s_symb = v_symb
                      ORDER BY ` + order + ` FOR UPDATE LOOP
                EXIT WHEN v_needed = 0;
                v_q := least(h.h_qty * v_sign, v_needed);
                v_rest := h.h_qty - v_q * v_sign;
                INSERT INTO holding_history (hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty) VALUES (h.h_t_id, p_trade_id, h.h_qty, v_rest);
                IF v_rest <> 0 THEN
                    UPDATE holding SET h_qty = v_rest WHERE h_t_id = h.h_t_id;
                ELSE
                    DELETE FROM holding WHERE h_t_id = h.h_t_id;
                END IF;
                IF v_is_sell THEN
                    v_buy := v_buy + v_q::float8 * h.h_price::float8;
                    v_sell := v_sell + v_q::float8 * v_price;
                ELSE
                    v_sell := v_sell + v_q::float8 * h.h_price::float8;
                    v_buy := v_buy + v_q::float8 * v_price;
                END IF;
                v_needed := v_needed - v_q;
            END LOOP;`
}

var pgTRFrame2 = `
    SELECT ca_b_id, ca_c_id, ca_tax_st INTO v_b_id, v_c_id, v_tax_st FROM customer_account WHERE ca_id = v_acct_id FOR UPDATE;
    IF NOT FOUND THEN
        missing := 'customer_account [' || v_acct_id || ']';
        RETURN;
    END IF;
    v_after := v_hs + v_qty;
    IF v_is_sell THEN
        v_after := v_hs - v_qty;
    ELSE
        v_sign := -1;
    END IF;
    IF v_hs = 0 THEN
        INSERT INTO holding_summary (hs_ca_id, hs_s_symb, hs_qty) VALUES (v_acct_id, v_symb, v_after);
    ELSIF v_after <> 0 THEN
        UPDATE holding_summary SET hs_qty = v_after WHERE hs_ca_id = v_acct_id AND hs_s_symb = v_symb;
    END IF;
    v_needed := v_qty;
    IF v_hs * v_sign > 0 THEN
        IF v_lifo THEN` + pgTRLots("h_dts DESC, h_t_id DESC") + `
        ELSE` + pgTRLots("h_dts, h_t_id") + `
        END IF;
    END IF;
    IF v_needed > 0 THEN
        v_new := CASE WHEN v_is_sell THEN -v_needed ELSE v_needed END;
        INSERT INTO holding_history (hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty) VALUES (p_trade_id, p_trade_id, 0, v_new);
        INSERT INTO holding (h_t_id, h_ca_id, h_s_symb, h_dts, h_price, h_qty)
        VALUES (p_trade_id, v_acct_id, v_symb, p_now, p_trade_price, v_new);
        IF v_is_sell THEN
            v_sell := v_sell + v_needed::float8 * v_price;
        ELSE
            v_buy := v_buy + v_needed::float8 * v_price;
        END IF;
    END IF;
    IF v_hs <> 0 AND v_after = 0 THEN
        DELETE FROM holding_summary WHERE hs_ca_id = v_acct_id AND hs_s_symb = v_symb;
    END IF;`

const pgTRFrame3 = `
    SELECT COALESCE(SUM(tx_rate), 0) INTO v_rate FROM taxrate, customer_taxrate WHERE cx_c_id = v_c_id AND tx_id = cx_tx_id;
    v_tax := tpce_round2((v_sell - v_buy) * v_rate);
    UPDATE trade SET t_tax = v_tax::numeric WHERE t_id = p_trade_id;`

func pgTRFrame4(nf func(string, ...string) string) string {
	return `
    SELECT s_ex_id, s_name INTO v_ex_id, v_s_name FROM security WHERE s_symb = v_symb;` + nf("security", "v_symb") + `
    SELECT c_tier INTO v_tier FROM customer WHERE c_id = v_c_id;` + nf("customer", "v_c_id") + `
    SELECT cr_rate INTO v_comm_rate FROM commission_rate
     WHERE cr_c_tier = v_tier AND cr_tt_id = v_tt_id AND cr_ex_id = v_ex_id AND cr_from_qty <= v_qty AND cr_to_qty >= v_qty;` +
		nf("commission_rate", "v_tier", "v_tt_id", "v_ex_id", "v_qty")
}

const pgTRFrame5 = `
    UPDATE trade SET t_comm = v_comm::numeric, t_dts = p_now, t_st_id = 'CMPT', t_trade_price = p_trade_price WHERE t_id = p_trade_id;
    INSERT INTO trade_history (th_t_id, th_dts, th_st_id) VALUES (p_trade_id, p_now, 'CMPT');
    -- By its key, not a scan of the whole (small) table, whose predicate
    -- lock would make concurrent Trade-Results of other brokers fail.
    SET LOCAL enable_seqscan = off;
    UPDATE broker SET b_comm_total = b_comm_total + v_comm::numeric, b_num_trades = b_num_trades + 1 WHERE b_id = v_b_id;`

func pgTRFrame6(nf func(string, ...string) string) string {
	return `
    INSERT INTO settlement (se_t_id, se_cash_type, se_cash_due_date, se_amt) VALUES (p_trade_id, v_cash_type, v_due, v_settle::numeric);
    IF v_is_cash THEN
        UPDATE customer_account SET ca_bal = ca_bal + v_settle::numeric WHERE ca_id = v_acct_id;
        INSERT INTO cash_transaction (ct_t_id, ct_dts, ct_amt, ct_name) VALUES (p_trade_id, p_now, v_settle::numeric, v_name);
    END IF;
    SELECT ca_bal INTO v_bal FROM customer_account WHERE ca_id = v_acct_id;` + nf("customer_account", "v_acct_id")
}

var pgTradeResult = pgFunc(nameTradeResult, `p_trade_id bigint, p_trade_price numeric, p_now timestamp`, `VOLATILE`,
	pgTRFrame1Decl+pgTRFrame2Decl+`
    v_rate float8;
    v_tax float8 := 0;
    v_ex_id varchar;
    v_s_name varchar;
    v_tier smallint;
    v_comm_rate float8;
    v_comm float8;
    v_value float8;
    v_settle float8;
    v_due date;
    v_cash_type varchar;
    v_name varchar;
    v_bal numeric;`, pgTRFrame1+pgTRFrame2+`
    IF v_tax_st IN (1, 2) AND v_sell > v_buy THEN`+pgTRFrame3+`
    END IF;`+pgTRFrame4(pgRaiseNF)+`
    v_comm := tpce_round2(v_comm_rate / 100 * v_qty::float8 * v_price);`+pgTRFrame5+`
    v_value := tpce_round2(v_qty::float8 * v_price);
    IF v_is_sell THEN
        v_settle := v_value - v_charge - v_comm;
    ELSE
        v_settle := -(v_value + v_charge + v_comm);
    END IF;
    IF v_tax_st = 1 THEN
        v_settle := v_settle - v_tax;
    END IF;
    v_settle := tpce_round2(v_settle);
    v_due := p_now::date + 2;
    v_cash_type := CASE WHEN v_is_cash THEN 'Cash Account' ELSE 'Margin' END;
    v_name := left(v_tt_name || ' ' || v_qty || ' shares of ' || v_s_name, 100);`+pgTRFrame6(pgRaiseNF)+`
    result := json_build_object('acctid', v_acct_id, 'acctbal', v_bal, 'brokerid', v_b_id, 'buyvalue', v_buy,
        'sellvalue', v_sell, 'taxamount', v_tax, 'commamount', v_comm, 'settleamt', v_settle,
        'settledue', tpce_ts(v_due))::text;`)

var pgTRF1 = pgFunc(nameTRFrame1, `p_trade_id bigint`, `VOLATILE`, pgTRFrame1Decl, pgTRFrame1+`
    result := json_build_object('acctid', v_acct_id, 'typeid', v_tt_id, 'symbol', v_symb, 'qty', v_qty, 'charge', v_charge,
        'lifo', v_lifo, 'iscash', v_is_cash, 'typename', v_tt_name, 'issell', v_is_sell, 'ismarket', v_is_mrkt,
        'hsqty', v_hs)::text;`)

var pgTRF2 = pgFunc(nameTRFrame2, `p_trade_id bigint, p_trade_price numeric, p_now timestamp, v_acct_id bigint,
        v_symb varchar, v_qty integer, v_is_sell boolean, v_lifo boolean, v_hs integer`, `VOLATILE`, pgTRFrame2Decl, pgTRFrame2+`
    result := json_build_object('brokerid', v_b_id, 'custid', v_c_id, 'taxstatus', v_tax_st, 'buyvalue', v_buy,
        'sellvalue', v_sell)::text;`)

var pgTRF3 = pgFunc(nameTRFrame3, `p_trade_id bigint, v_c_id bigint, v_buy float8, v_sell float8`, `VOLATILE`, `
    v_rate float8;
    v_tax float8;`, pgTRFrame3+`
    result := json_build_object('taxamount', v_tax)::text;`)

var pgTRF4 = pgFunc(nameTRFrame4, `v_symb varchar, v_c_id bigint, v_tt_id varchar, v_qty integer`, `STABLE`, `
    v_ex_id varchar;
    v_s_name varchar;
    v_tier smallint;
    v_comm_rate float8;`, pgTRFrame4(pgNF)+`
    result := json_build_object('secname', v_s_name, 'commrate', v_comm_rate)::text;`)

var pgTRF5 = pgFunc(nameTRFrame5, `p_trade_id bigint, p_comm numeric, p_now timestamp, p_trade_price numeric, v_b_id bigint`, `VOLATILE`, `
    v_comm numeric := p_comm;`, pgTRFrame5+`
    result := '{}';`)

var pgTRF6 = pgFunc(nameTRFrame6, `p_trade_id bigint, v_acct_id bigint, v_cash_type varchar, v_due date, p_settle numeric,
        v_is_cash boolean, v_name varchar, p_now timestamp`, `VOLATILE`, `
    v_settle numeric := p_settle;
    v_bal numeric;`, pgTRFrame6(pgNF)+`
    result := json_build_object('acctbal', v_bal)::text;`)

// Market-Feed, one ticker entry (one transaction in every mode).
var pgMarketFeed = pgFunc(nameMarketFeed, `p_symbol varchar, p_price numeric, p_qty bigint, p_now timestamp`, `VOLATILE`, `
    r record;
    v_hits json[];`, `
    UPDATE last_trade SET lt_price = p_price, lt_vol = lt_vol + p_qty, lt_dts = p_now WHERE lt_s_symb = p_symbol;
    FOR r IN SELECT tr_t_id, tr_bid_price, tr_tt_id, tr_qty FROM trade_request
              WHERE tr_s_symb = p_symbol AND ((tr_tt_id = 'TSL' AND tr_bid_price >= p_price)
                 OR (tr_tt_id = 'TLS' AND tr_bid_price <= p_price)
                 OR (tr_tt_id = 'TLB' AND tr_bid_price >= p_price)) FOR UPDATE LOOP
        v_hits := v_hits || json_build_object('tradeid', r.tr_t_id, 'symbol', p_symbol, 'typeid', r.tr_tt_id,
            'qty', r.tr_qty, 'bidprice', r.tr_bid_price);
    END LOOP;
    FOR r IN SELECT (e->>'tradeid')::bigint AS id FROM unnest(v_hits) e LOOP
        UPDATE trade SET t_dts = p_now, t_st_id = 'SBMT' WHERE t_id = r.id;
        DELETE FROM trade_request WHERE tr_t_id = r.id;
        INSERT INTO trade_history (th_t_id, th_dts, th_st_id) VALUES (r.id, p_now, 'SBMT');
    END LOOP;
    result := coalesce(array_to_json(v_hits)::text, 'null');`)

// Trade-Cleanup, one frame.
var pgTradeCleanup = pgFunc(nameTradeCleanup, `p_start_trade_id bigint, p_now timestamp`, `VOLATILE`, `
    r record;
    v_ids bigint[];
    v_n integer := 0;`, `
    SELECT array_agg(tr_t_id ORDER BY tr_t_id) INTO v_ids FROM trade_request;
    FOR r IN SELECT id FROM unnest(v_ids) id LOOP
        INSERT INTO trade_history (th_t_id, th_dts, th_st_id) VALUES (r.id, p_now, 'SBMT');
        UPDATE trade SET t_st_id = 'CNCL', t_dts = p_now + interval '1 microsecond' WHERE t_id = r.id;
        INSERT INTO trade_history (th_t_id, th_dts, th_st_id) VALUES (r.id, p_now + interval '1 microsecond', 'CNCL');
        v_n := v_n + 1;
    END LOOP;
    DELETE FROM trade_request;
    SELECT array_agg(t_id) INTO v_ids FROM trade WHERE t_id >= p_start_trade_id AND t_st_id = 'SBMT';
    FOR r IN SELECT id FROM unnest(v_ids) id LOOP
        UPDATE trade SET t_st_id = 'CNCL', t_dts = p_now WHERE t_id = r.id;
        INSERT INTO trade_history (th_t_id, th_dts, th_st_id) VALUES (r.id, p_now, 'CNCL');
        v_n := v_n + 1;
    END LOOP;
    result := v_n::text;`)

// Data-Maintenance, one frame.
var pgDataMaintenance = pgFunc(nameDataMaintenance, `p_table varchar, p_acct_id bigint, p_c_id bigint, p_co_id bigint,
        p_tx_id varchar, p_symbol varchar, p_day_of_month integer, p_vol_incr bigint, p_now timestamp`, `VOLATILE`, `
    v_s text;
    v_t text;
    v_id bigint;
    v_d date;
    v_n bigint := 0;
    v_k bigint;
    v_stamp text;
    r record;`, `
    CASE p_table
    WHEN 'account_permission' THEN
        SELECT ap_acl INTO v_s FROM account_permission WHERE ap_ca_id = p_acct_id ORDER BY ap_acl DESC LIMIT 1;`+pgNF("account_permission", "p_acct_id")+`
        UPDATE account_permission SET ap_acl = CASE WHEN v_s = '1111' THEN '0011' ELSE '1111' END
         WHERE ap_ca_id = p_acct_id AND ap_acl = v_s;
        GET DIAGNOSTICS v_n = ROW_COUNT;
    WHEN 'address' THEN
        IF p_c_id <> 0 THEN
            SELECT c_ad_id INTO v_id FROM customer WHERE c_id = p_c_id;`+pgNF("customer", "p_c_id")+`
        ELSE
            SELECT co_ad_id INTO v_id FROM company WHERE co_id = p_co_id;`+pgNF("company", "p_co_id")+`
        END IF;
        SELECT ad_line2 INTO v_s FROM address WHERE ad_id = v_id;`+pgNF("address", "v_id")+`
        UPDATE address SET ad_line2 = CASE WHEN coalesce(v_s, '') = 'Apt. 10C' THEN 'Apt. 22' ELSE 'Apt. 10C' END WHERE ad_id = v_id;
        GET DIAGNOSTICS v_n = ROW_COUNT;
    WHEN 'company' THEN
        SELECT co_sp_rate INTO v_s FROM company WHERE co_id = p_co_id;`+pgNF("company", "p_co_id")+`
        UPDATE company SET co_sp_rate = CASE WHEN v_s = 'ABA' THEN 'AAA' ELSE 'ABA' END WHERE co_id = p_co_id;
        GET DIAGNOSTICS v_n = ROW_COUNT;
    WHEN 'customer' THEN
        SELECT c_email_2 INTO v_s FROM customer WHERE c_id = p_c_id;`+pgNF("customer", "p_c_id")+`
        IF position('@' IN coalesce(v_s, '')) > 0 THEN
            v_t := substr(v_s, position('@' IN v_s) + 1);
            UPDATE customer SET c_email_2 = split_part(v_s, '@', 1) || '@' ||
                   CASE WHEN v_t = 'mindspring.com' THEN 'earthlink.com' ELSE 'mindspring.com' END
             WHERE c_id = p_c_id;
            GET DIAGNOSTICS v_n = ROW_COUNT;
        END IF;
    WHEN 'customer_taxrate' THEN
        SELECT cx_tx_id INTO v_s FROM customer_taxrate WHERE cx_c_id = p_c_id AND cx_tx_id LIKE 'US%';`+pgNF("customer_taxrate", "p_c_id")+`
        v_t := CASE WHEN char_length(v_s) = 3 AND substr(v_s, 3, 1) BETWEEN '1' AND '4'
                    THEN 'US' || (substr(v_s, 3, 1)::integer + 1) ELSE 'US1' END;
        UPDATE customer_taxrate SET cx_tx_id = v_t WHERE cx_c_id = p_c_id AND cx_tx_id = v_s;
        GET DIAGNOSTICS v_n = ROW_COUNT;
    WHEN 'daily_market' THEN
        UPDATE daily_market SET dm_vol = dm_vol + p_vol_incr
         WHERE dm_s_symb = p_symbol AND extract(day FROM dm_date) = p_day_of_month;
        GET DIAGNOSTICS v_n = ROW_COUNT;
    WHEN 'exchange' THEN
        v_stamp := ' LAST UPDATED ' || to_char(p_now, 'YYYY-MM-DD HH24:MI:SS.US');
        FOR r IN SELECT ex_id, coalesce(ex_desc, '') AS d FROM exchange ORDER BY ex_id LOOP
            UPDATE exchange SET ex_desc = left(split_part(r.d, ' LAST UPDATED ', 1), 150 - char_length(v_stamp)) || v_stamp
             WHERE ex_id = r.ex_id;
            GET DIAGNOSTICS v_k = ROW_COUNT;
            v_n := v_n + v_k;
        END LOOP;
    WHEN 'financial' THEN
        UPDATE financial SET fi_qtr_start_date = fi_qtr_start_date +
               CASE WHEN EXISTS (SELECT 1 FROM financial WHERE fi_co_id = p_co_id AND extract(day FROM fi_qtr_start_date) = 1)
                    THEN 1 ELSE -1 END
         WHERE fi_co_id = p_co_id;
        GET DIAGNOSTICS v_n = ROW_COUNT;
    WHEN 'news_item' THEN
        UPDATE news_item SET ni_dts = ni_dts + interval '1 day'
         WHERE ni_id IN (SELECT nx_ni_id FROM news_xref WHERE nx_co_id = p_co_id);
        GET DIAGNOSTICS v_n = ROW_COUNT;
    WHEN 'security' THEN
        SELECT s_exch_date INTO v_d FROM security WHERE s_symb = p_symbol;`+pgNF("security", "p_symbol")+`
        UPDATE security SET s_exch_date = v_d + 1 WHERE s_symb = p_symbol;
        GET DIAGNOSTICS v_n = ROW_COUNT;
    WHEN 'taxrate' THEN
        SELECT tx_name INTO v_s FROM taxrate WHERE tx_id = p_tx_id;`+pgNF("taxrate", "p_tx_id")+`
        v_t := CASE WHEN position(' Tax ' IN v_s) > 0 THEN tpce_replace1(v_s, ' Tax ', ' tax ')
                    ELSE tpce_replace1(v_s, ' tax ', ' Tax ') END;
        UPDATE taxrate SET tx_name = v_t WHERE tx_id = p_tx_id;
        GET DIAGNOSTICS v_n = ROW_COUNT;
    WHEN 'watch_item' THEN
        SELECT wl_id INTO v_id FROM watch_list WHERE wl_c_id = p_c_id;`+pgNF("watch_list", "p_c_id")+`
        SELECT s INTO v_s FROM (SELECT wi_s_symb AS s, row_number() OVER (ORDER BY wi_s_symb) AS n,
                                       count(*) OVER () AS c FROM watch_item WHERE wi_wl_id = v_id) w
         WHERE n = (c - 1) / 2 + 1;
        IF NOT FOUND THEN
            result := '0';
            RETURN;
        END IF;
        SELECT s_symb INTO v_t FROM security WHERE s_symb > v_s
           AND s_symb NOT IN (SELECT wi_s_symb FROM watch_item WHERE wi_wl_id = v_id) ORDER BY s_symb LIMIT 1;
        IF NOT FOUND THEN
            SELECT s_symb INTO v_t FROM security
             WHERE s_symb NOT IN (SELECT wi_s_symb FROM watch_item WHERE wi_wl_id = v_id) ORDER BY s_symb LIMIT 1;`+pgNF("security", "v_id")+`
        END IF;
        UPDATE watch_item SET wi_s_symb = v_t WHERE wi_wl_id = v_id AND wi_s_symb = v_s;
        GET DIAGNOSTICS v_n = ROW_COUNT;
    ELSE
        RAISE EXCEPTION 'tpce: data-maintenance of table %', p_table USING ERRCODE = 'invalid_parameter_value';
    END CASE;
    result := v_n::text;`)

// pgSources are the CREATE FUNCTION texts by name.
var pgSources = func() map[string]string {
	m := map[string]string{}
	for _, f := range pgHelpers {
		m[f.name] = f.src
	}
	for _, f := range []fn{
		{nameTradeStatus, pgTradeStatus}, {nameBrokerVolume, pgBrokerVolume},
		{nameCustomerPosition, pgCustomerPosition}, {nameCPFrame1, pgCPF1}, {nameCPFrame2, pgCPF2},
		{nameMarketWatch, pgMarketWatch}, {nameSecurityDetail, pgSecurityDetail},
		{nameTradeLookup, pgTradeLookup}, {nameTradeUpdate, pgTradeUpdate},
		{nameTradeOrder, pgTradeOrder}, {nameTOFrame1, pgTOF1}, {nameTOFrame2, pgTOF2}, {nameTOFrame3, pgTOF3}, {nameTOFrame4, pgTOF4},
		{nameTradeResult, pgTradeResult}, {nameTRFrame1, pgTRF1}, {nameTRFrame2, pgTRF2}, {nameTRFrame3, pgTRF3},
		{nameTRFrame4, pgTRF4}, {nameTRFrame5, pgTRF5}, {nameTRFrame6, pgTRF6},
		{nameMarketFeed, pgMarketFeed}, {nameTradeCleanup, pgTradeCleanup}, {nameDataMaintenance, pgDataMaintenance},
	} {
		m[f.name] = f.src
	}
	return m
}()

// pgCall runs function name with n arguments and returns its two OUT
// parameters.
func pgCall(name string, n int) string { return sqlproc.Call("SELECT missing, result FROM", name, n) }

// pgResult reads a function's two OUT parameters.
func pgResult(ctx context.Context, st engine.Stmt, args []any) (string, string, error) {
	var missing, result sql.NullString
	if err := st.QueryRow(ctx, args, &missing, &result); err != nil {
		return "", "", err
	}
	return missing.String, result.String, nil
}
