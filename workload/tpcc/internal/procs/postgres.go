package procs

import (
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/sqlproc"
)

// The PostgreSQL flavor is the PL/pgSQL form of the transactions.
//
// A function call is one statement of the caller's transaction (autocommit:
// the call is the whole transaction). A function cannot COMMIT or ROLLBACK,
// so New-Order runs its work in a block with an EXCEPTION clause (a
// subtransaction): the missing item raises SQLSTATE TPC01, the handler
// returns 1, and PostgreSQL undoes everything the block wrote. Other errors
// are not caught: they fail the call, and with it the transaction.
//
// Order-Status and Stock-Level are STABLE: all their queries read the
// snapshot of the calling statement, as one read-only transaction would.
// The others are VOLATILE (the default), whose statements see the rows of
// transactions committed while they waited for a lock, as client-side
// statements at READ COMMITTED do. Preparing a call fails when its
// function is missing.
func init() {
	flavors.Register(engine.KindPostgres, flavor{
		inst:     sqlproc.Postgres{},
		routines: routines(pgNewOrder, pgPayment, pgOrderStatus, pgDelivery, pgStockLevel),
	})
}

// errItemNotFound is the SQLSTATE New-Order raises for an unused item.
const errItemNotFound = "TPC01"

// distCase is the s_dist_XX column of district p_d_id.
var distCase = func() string {
	var b strings.Builder
	b.WriteString("CASE p_d_id")
	for d := 1; d <= 10; d++ {
		fmt.Fprintf(&b, " WHEN %d THEN s_dist_%02d", d, d)
	}
	b.WriteString(" END")
	return b.String()
}()

// pgMustFind raises no_data_found with a message naming fn, what and the
// values of the expressions ids when the last statement found no row.
func pgMustFind(fn, what, indent string, ids ...string) string {
	return `
` + indent + `IF NOT FOUND THEN
` + indent + `    RAISE EXCEPTION '` + fn + `: no ` + what + ` %', concat_ws('/', ` + strings.Join(ids, ", ") + `)
` + indent + `        USING ERRCODE = 'no_data_found';
` + indent + `END IF;`
}

// customerByName is the PL/pgSQL that sets v_c_id to the customer of
// (w, d, p_c_last) at position ceil(n/2) by c_first, raising an error when
// there is none; w and d name the warehouse and district parameters.
func customerByName(fn, w, d string) string {
	return `
        SELECT count(*) INTO v_n FROM customer
         WHERE c_w_id = ` + w + ` AND c_d_id = ` + d + ` AND c_last = p_c_last;
        IF v_n = 0 THEN
            RAISE EXCEPTION '` + fn + `: no customer named % in warehouse % district %', p_c_last, ` + w + `, ` + d + `
                USING ERRCODE = 'no_data_found';
        END IF;
        SELECT c_id INTO v_c_id FROM customer
         WHERE c_w_id = ` + w + ` AND c_d_id = ` + d + ` AND c_last = p_c_last
         ORDER BY c_first OFFSET (v_n - 1) / 2 LIMIT 1;`
}

var pgNewOrder = `
CREATE FUNCTION tpcc_new_order(p_w_id integer, p_d_id integer, p_c_id integer,
        p_items text, p_supply_w_ids text, p_quantities text, p_entry_d timestamp)
    RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
    v_items integer[] := string_to_array(p_items, ',')::integer[];
    v_supply integer[] := string_to_array(p_supply_w_ids, ',')::integer[];
    v_qty integer[] := string_to_array(p_quantities, ',')::integer[];
    v_ol_cnt integer := coalesce(cardinality(v_items), 0);
    v_all_local integer;
    v_w_tax numeric;
    v_d_tax numeric;
    v_o_id integer;
    v_c record;
    v_i record;
    v_s record;
BEGIN
    IF v_ol_cnt = 0 OR cardinality(v_supply) <> v_ol_cnt OR cardinality(v_qty) <> v_ol_cnt THEN
        RAISE EXCEPTION 'tpcc_new_order: % items, % supplying warehouses, % quantities',
            v_ol_cnt, cardinality(v_supply), cardinality(v_qty)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    v_all_local := CASE WHEN p_w_id = ALL (v_supply) THEN 1 ELSE 0 END;
    BEGIN
        SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w_id;` + pgMustFind("tpcc_new_order", "warehouse", "        ", "p_w_id") + `
        UPDATE district SET d_next_o_id = d_next_o_id + 1
         WHERE d_w_id = p_w_id AND d_id = p_d_id
         RETURNING d_tax, d_next_o_id - 1 INTO v_d_tax, v_o_id;` + pgMustFind("tpcc_new_order", "district", "        ", "p_w_id", "p_d_id") + `
        SELECT c_discount, c_last, c_credit INTO v_c FROM customer
         WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;` + pgMustFind("tpcc_new_order", "customer", "        ", "p_w_id", "p_d_id", "p_c_id") + `
        INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
        VALUES (v_o_id, p_d_id, p_w_id, p_c_id, p_entry_d, NULL, v_ol_cnt, v_all_local);
        INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);
        FOR n IN 1 .. v_ol_cnt LOOP
            SELECT i_price, i_name, i_data INTO v_i FROM item WHERE i_id = v_items[n];
            IF NOT FOUND THEN
                RAISE EXCEPTION 'tpcc_new_order: item % not found', v_items[n]
                    USING ERRCODE = '` + errItemNotFound + `';
            END IF;
            UPDATE stock SET
                s_quantity = CASE WHEN s_quantity - v_qty[n] >= 10 THEN s_quantity - v_qty[n]
                                  ELSE s_quantity - v_qty[n] + 91 END,
                s_ytd = s_ytd + v_qty[n],
                s_order_cnt = s_order_cnt + 1,
                s_remote_cnt = s_remote_cnt + CASE WHEN v_supply[n] <> p_w_id THEN 1 ELSE 0 END
             WHERE s_i_id = v_items[n] AND s_w_id = v_supply[n]
             RETURNING ` + distCase + ` AS dist_info, s_data INTO v_s;` + pgMustFind("tpcc_new_order", "stock", "            ", "v_supply[n]", "v_items[n]") + `
            INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                                    ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
            VALUES (v_o_id, p_d_id, p_w_id, n, v_items[n], v_supply[n],
                    NULL, v_qty[n], v_qty[n] * v_i.i_price, v_s.dist_info);
        END LOOP;
    EXCEPTION WHEN SQLSTATE '` + errItemNotFound + `' THEN
        RETURN 1;
    END;
    RETURN 0;
END
$fn$`

var pgPayment = `
CREATE FUNCTION tpcc_payment(p_w_id integer, p_d_id integer, p_c_w_id integer, p_c_d_id integer,
        p_c_id integer, p_c_last text, p_amount numeric, p_date timestamp)
    RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
    v_amount numeric(6, 2) := round(p_amount, 2);
    v_c_id integer := p_c_id;
    v_n integer;
    v_w record;
    v_d record;
    v_c record;
BEGIN
    UPDATE warehouse SET w_ytd = w_ytd + v_amount WHERE w_id = p_w_id
     RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip INTO v_w;` + pgMustFind("tpcc_payment", "warehouse", "    ", "p_w_id") + `
    UPDATE district SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w_id AND d_id = p_d_id
     RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip INTO v_d;` + pgMustFind("tpcc_payment", "district", "    ", "p_w_id", "p_d_id") + `
    IF p_c_last <> '' THEN` + customerByName("tpcc_payment", "p_c_w_id", "p_c_d_id") + `
    END IF;
    UPDATE customer SET
        c_balance = c_balance - v_amount,
        c_ytd_payment = c_ytd_payment + v_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = CASE WHEN c_credit = 'BC'
                      THEN left(concat_ws(' ', c_id, c_d_id, c_w_id, p_d_id, p_w_id, v_amount, c_data), 500)
                      ELSE c_data END
     WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id
     RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
               c_since, c_credit, c_credit_lim, c_discount, c_balance INTO v_c;` + pgMustFind("tpcc_payment", "customer", "    ", "p_c_w_id", "p_c_d_id", "v_c_id") + `
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, p_date, v_amount, v_w.w_name || '    ' || v_d.d_name);
    RETURN 0;
END
$fn$`

var pgOrderStatus = `
CREATE FUNCTION tpcc_order_status(p_w_id integer, p_d_id integer, p_c_id integer, p_c_last text)
    RETURNS integer LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_c_id integer := p_c_id;
    v_n integer;
    v_c record;
    v_o record;
    v_ol record;
    v_lines integer := 0;
BEGIN
    IF p_c_last <> '' THEN` + customerByName("tpcc_order_status", "p_w_id", "p_d_id") + `
    END IF;
    SELECT c_balance, c_first, c_middle, c_last INTO v_c FROM customer
     WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = v_c_id;` + pgMustFind("tpcc_order_status", "customer", "    ", "p_w_id", "p_d_id", "v_c_id") + `
    SELECT o_id, o_entry_d, o_carrier_id INTO v_o FROM orders
     WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = v_c_id
     ORDER BY o_id DESC LIMIT 1;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    FOR v_ol IN
        SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
         WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = v_o.o_id
    LOOP
        v_lines := v_lines + 1;
    END LOOP;
    RETURN v_lines;
END
$fn$`

var pgDelivery = `
CREATE FUNCTION tpcc_delivery(p_w_id integer, p_carrier_id integer, p_date timestamp)
    RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
    v_o_id integer;
    v_c_id integer;
    v_amount numeric;
    v_delivered integer := 0;
BEGIN
    FOR v_d_id IN 1 .. 10 LOOP
        SELECT no_o_id INTO v_o_id FROM new_order
         WHERE no_w_id = p_w_id AND no_d_id = v_d_id
         ORDER BY no_o_id LIMIT 1 FOR UPDATE;
        CONTINUE WHEN NOT FOUND;
        DELETE FROM new_order WHERE no_w_id = p_w_id AND no_d_id = v_d_id AND no_o_id = v_o_id;
        UPDATE orders SET o_carrier_id = p_carrier_id
         WHERE o_w_id = p_w_id AND o_d_id = v_d_id AND o_id = v_o_id
         RETURNING o_c_id INTO v_c_id;` + pgMustFind("tpcc_delivery", "order", "        ", "p_w_id", "v_d_id", "v_o_id") + `
        WITH lines AS (
            UPDATE order_line SET ol_delivery_d = p_date
             WHERE ol_w_id = p_w_id AND ol_d_id = v_d_id AND ol_o_id = v_o_id
             RETURNING ol_amount)
        SELECT coalesce(sum(ol_amount), 0) INTO v_amount FROM lines;
        UPDATE customer SET c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
         WHERE c_w_id = p_w_id AND c_d_id = v_d_id AND c_id = v_c_id;
        v_delivered := v_delivered + 1;
    END LOOP;
    RETURN v_delivered;
END
$fn$`

var pgStockLevel = `
CREATE FUNCTION tpcc_stock_level(p_w_id integer, p_d_id integer, p_threshold integer)
    RETURNS integer LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_next integer;
    v_count integer;
BEGIN
    SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;` + pgMustFind("tpcc_stock_level", "district", "    ", "p_w_id", "p_d_id") + `
    SELECT count(DISTINCT s_i_id) INTO v_count
      FROM order_line JOIN stock ON s_w_id = p_w_id AND s_i_id = ol_i_id
     WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id
       AND ol_o_id >= v_next - 20 AND ol_o_id < v_next
       AND s_quantity < p_threshold;
    RETURN v_count;
END
$fn$`
