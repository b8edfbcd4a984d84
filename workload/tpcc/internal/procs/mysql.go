package procs

import (
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/internal/sqlproc"
)

// The MySQL/MariaDB flavor is the stored-procedure form of the
// transactions.
//
// Each procedure runs START TRANSACTION … COMMIT itself and ends with
// SELECT of its status: a prepared CALL returns that one-row result set
// (then the CALL's own OK packet, which the driver discards), so one round
// trip runs one transaction. An EXIT HANDLER FOR SQLEXCEPTION rolls back and
// RESIGNALs: the client receives the original error (1213 for a deadlock,
// 1205 for a lock wait timeout, after which InnoDB would otherwise have
// undone the statement only), and no transaction is left open. A NOT FOUND
// handler clears v_found, which the procedures test after every SELECT …
// INTO that must find a row.
//
// Local variables are prefixed v_ and parameters p_: in MySQL a local
// variable named like a column shadows the column.
//
// The server prepares a CALL of a missing procedure without complaint:
// Prepare looks for the five in information_schema first.
func init() {
	procedures := sqlproc.MySQL{}
	flavors.Register(engine.KindMySQL, flavor{
		inst:     procedures,
		routines: routines(myNewOrder, myPayment, myOrderStatus, myDelivery, myStockLevel),
		missing:  procedures.Missing,
	})
}

// myHandlers are the declarations every procedure ends its DECLARE
// section with.
const myHandlers = `
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        RESIGNAL;
    END;`

// myMustFind raises SQLSTATE 45000 with a message naming fn, what and the
// values of the expressions ids when the last SELECT … INTO found no row.
func myMustFind(fn, what string, ids ...string) string {
	return `
    IF v_found = 0 THEN
        SET v_msg = CONCAT('` + fn + `: no ` + what + ` ', CONCAT_WS('/', ` + strings.Join(ids, ", ") + `));
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
    END IF;`
}

// myCustomerByName sets v_c_id to the customer of (w, d, p_c_last) at
// position ceil(n/2) by c_first.
func myCustomerByName(fn, w, d string) string {
	return `
        SELECT COUNT(*) INTO v_n FROM customer
         WHERE c_w_id = ` + w + ` AND c_d_id = ` + d + ` AND c_last = p_c_last;
        IF v_n = 0 THEN
            SET v_msg = CONCAT('` + fn + `: no customer named ', p_c_last, ' in ', ` + w + `, '/', ` + d + `);
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
        END IF;
        SET v_off = (v_n - 1) DIV 2;
        SELECT c_id INTO v_c_id FROM customer
         WHERE c_w_id = ` + w + ` AND c_d_id = ` + d + ` AND c_last = p_c_last
         ORDER BY c_first LIMIT v_off, 1;`
}

// myNextID pops the first element of the comma-separated list in variable
// list into integer variable v.
func myNextID(v, list string) string {
	return `
            SET ` + v + ` = CAST(SUBSTRING_INDEX(` + list + `, ',', 1) AS SIGNED);
            SET ` + list + ` = SUBSTRING(` + list + `, LOCATE(',', ` + list + `) + 1);`
}

// myCount is the number of elements of a comma-separated list.
func myCount(list string) string {
	return `1 + CHAR_LENGTH(` + list + `) - CHAR_LENGTH(REPLACE(` + list + `, ',', ''))`
}

var myNewOrder = `
CREATE PROCEDURE tpcc_new_order(IN p_w_id INT, IN p_d_id INT, IN p_c_id INT,
        IN p_items VARCHAR(2000), IN p_supply_w_ids VARCHAR(2000), IN p_quantities VARCHAR(2000),
        IN p_entry_d DATETIME(6))
proc: BEGIN
    DECLARE v_found INT DEFAULT 1;
    DECLARE v_msg VARCHAR(255);
    DECLARE v_ol_cnt, v_all_local, v_n, v_o_id, v_i_id, v_supply_w_id, v_qty, v_s_quantity INT;
    DECLARE v_items, v_supply, v_qtys VARCHAR(2000);
    DECLARE v_w_tax, v_d_tax, v_c_discount DECIMAL(4, 4);
    DECLARE v_c_last VARCHAR(16);
    DECLARE v_c_credit CHAR(2);
    DECLARE v_i_price DECIMAL(5, 2);
    DECLARE v_i_name VARCHAR(24);
    DECLARE v_i_data, v_s_data VARCHAR(50);
    DECLARE v_s_dist CHAR(24);` + myHandlers + `

    SET v_ol_cnt = ` + myCount("p_items") + `;
    IF p_items = '' OR ` + myCount("p_supply_w_ids") + ` <> v_ol_cnt OR ` + myCount("p_quantities") + ` <> v_ol_cnt THEN
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'tpcc_new_order: the item, supplying warehouse and quantity lists differ in length';
    END IF;
    SET v_all_local = 1, v_supply = p_supply_w_ids, v_n = 1;
    WHILE v_n <= v_ol_cnt DO` + myNextID("v_supply_w_id", "v_supply") + `
        IF v_supply_w_id <> p_w_id THEN
            SET v_all_local = 0;
        END IF;
        SET v_n = v_n + 1;
    END WHILE;

    START TRANSACTION;
    SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w_id;` + myMustFind("tpcc_new_order", "warehouse", "p_w_id") + `
    SELECT d_tax, d_next_o_id INTO v_d_tax, v_o_id FROM district
     WHERE d_w_id = p_w_id AND d_id = p_d_id FOR UPDATE;` + myMustFind("tpcc_new_order", "district", "p_w_id", "p_d_id") + `
    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w_id AND d_id = p_d_id;
    SELECT c_discount, c_last, c_credit INTO v_c_discount, v_c_last, v_c_credit FROM customer
     WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;` + myMustFind("tpcc_new_order", "customer", "p_w_id", "p_d_id", "p_c_id") + `
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o_id, p_d_id, p_w_id, p_c_id, p_entry_d, NULL, v_ol_cnt, v_all_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);

    SET v_items = p_items, v_supply = p_supply_w_ids, v_qtys = p_quantities, v_n = 1;
    WHILE v_n <= v_ol_cnt DO` + myNextID("v_i_id", "v_items") + myNextID("v_supply_w_id", "v_supply") + myNextID("v_qty", "v_qtys") + `
        SELECT i_price, i_name, i_data INTO v_i_price, v_i_name, v_i_data FROM item WHERE i_id = v_i_id;
        IF v_found = 0 THEN
            ROLLBACK;
            SELECT 1 AS status;
            LEAVE proc;
        END IF;
        SELECT s_quantity, ` + distCase + `, s_data INTO v_s_quantity, v_s_dist, v_s_data FROM stock
         WHERE s_i_id = v_i_id AND s_w_id = v_supply_w_id FOR UPDATE;` + myMustFind("tpcc_new_order", "stock", "v_supply_w_id", "v_i_id") + `
        UPDATE stock SET
            s_quantity = IF(v_s_quantity - v_qty >= 10, v_s_quantity - v_qty, v_s_quantity - v_qty + 91),
            s_ytd = s_ytd + v_qty,
            s_order_cnt = s_order_cnt + 1,
            s_remote_cnt = s_remote_cnt + IF(v_supply_w_id <> p_w_id, 1, 0)
         WHERE s_i_id = v_i_id AND s_w_id = v_supply_w_id;
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                                ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        VALUES (v_o_id, p_d_id, p_w_id, v_n, v_i_id, v_supply_w_id,
                NULL, v_qty, v_qty * v_i_price, v_s_dist);
        SET v_n = v_n + 1;
    END WHILE;
    COMMIT;
    SELECT 0 AS status;
END`

var myPayment = `
CREATE PROCEDURE tpcc_payment(IN p_w_id INT, IN p_d_id INT, IN p_c_w_id INT, IN p_c_d_id INT,
        IN p_c_id INT, IN p_c_last VARCHAR(16), IN p_amount DECIMAL(6, 2), IN p_date DATETIME(6))
BEGIN
    DECLARE v_found INT DEFAULT 1;
    DECLARE v_msg VARCHAR(255);
    DECLARE v_n, v_off, v_c_id INT;
    DECLARE v_w_name, v_d_name VARCHAR(10);
    DECLARE v_w_street_1, v_w_street_2, v_w_city, v_d_street_1, v_d_street_2, v_d_city VARCHAR(20);
    DECLARE v_w_state, v_d_state CHAR(2);
    DECLARE v_w_zip, v_d_zip CHAR(9);
    DECLARE v_c_first, v_c_last VARCHAR(16);
    DECLARE v_c_middle, v_c_state, v_c_credit CHAR(2);
    DECLARE v_c_street_1, v_c_street_2, v_c_city VARCHAR(20);
    DECLARE v_c_zip CHAR(9);
    DECLARE v_c_phone CHAR(16);
    DECLARE v_c_since DATETIME(6);
    DECLARE v_c_credit_lim, v_c_balance DECIMAL(12, 2);
    DECLARE v_c_discount DECIMAL(4, 4);` + myHandlers + `

    START TRANSACTION;
    UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w_id;
    SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip
      INTO v_w_name, v_w_street_1, v_w_street_2, v_w_city, v_w_state, v_w_zip
      FROM warehouse WHERE w_id = p_w_id;` + myMustFind("tpcc_payment", "warehouse", "p_w_id") + `
    UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w_id AND d_id = p_d_id;
    SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip
      INTO v_d_name, v_d_street_1, v_d_street_2, v_d_city, v_d_state, v_d_zip
      FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;` + myMustFind("tpcc_payment", "district", "p_w_id", "p_d_id") + `
    IF p_c_last <> '' THEN` + myCustomerByName("tpcc_payment", "p_c_w_id", "p_c_d_id") + `
    ELSE
        SET v_c_id = p_c_id;
    END IF;
    SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
           c_since, c_credit, c_credit_lim, c_discount, c_balance
      INTO v_c_first, v_c_middle, v_c_last, v_c_street_1, v_c_street_2, v_c_city, v_c_state, v_c_zip, v_c_phone,
           v_c_since, v_c_credit, v_c_credit_lim, v_c_discount, v_c_balance
      FROM customer WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id FOR UPDATE;` +
	myMustFind("tpcc_payment", "customer", "p_c_w_id", "p_c_d_id", "v_c_id") + `
    UPDATE customer SET
        c_balance = c_balance - p_amount,
        c_ytd_payment = c_ytd_payment + p_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = IF(c_credit = 'BC',
                    LEFT(CONCAT_WS(' ', c_id, c_d_id, c_w_id, p_d_id, p_w_id, p_amount, c_data), 500),
                    c_data)
     WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, p_date, p_amount, CONCAT(v_w_name, '    ', v_d_name));
    COMMIT;
    SELECT 0 AS status;
END`

var myOrderStatus = `
CREATE PROCEDURE tpcc_order_status(IN p_w_id INT, IN p_d_id INT, IN p_c_id INT, IN p_c_last VARCHAR(16))
BEGIN
    DECLARE v_found INT DEFAULT 1;
    DECLARE v_msg VARCHAR(255);
    DECLARE v_n, v_off, v_c_id, v_o_id, v_o_carrier_id, v_ol_i_id, v_ol_supply_w_id, v_ol_quantity INT;
    DECLARE v_lines INT DEFAULT 0;
    DECLARE v_c_balance DECIMAL(12, 2);
    DECLARE v_c_first, v_c_last VARCHAR(16);
    DECLARE v_c_middle CHAR(2);
    DECLARE v_o_entry_d, v_ol_delivery_d DATETIME(6);
    DECLARE v_ol_amount DECIMAL(6, 2);
    DECLARE cur_lines CURSOR FOR
        SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
         WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = v_o_id;` + myHandlers + `

    START TRANSACTION READ ONLY;
    IF p_c_last <> '' THEN` + myCustomerByName("tpcc_order_status", "p_w_id", "p_d_id") + `
    ELSE
        SET v_c_id = p_c_id;
    END IF;
    SELECT c_balance, c_first, c_middle, c_last INTO v_c_balance, v_c_first, v_c_middle, v_c_last
      FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = v_c_id;` +
	myMustFind("tpcc_order_status", "customer", "p_w_id", "p_d_id", "v_c_id") + `
    SELECT o_id, o_entry_d, o_carrier_id INTO v_o_id, v_o_entry_d, v_o_carrier_id FROM orders
     WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = v_c_id
     ORDER BY o_id DESC LIMIT 1;
    IF v_found = 1 THEN
        OPEN cur_lines;
        read_lines: LOOP
            FETCH cur_lines INTO v_ol_i_id, v_ol_supply_w_id, v_ol_quantity, v_ol_amount, v_ol_delivery_d;
            IF v_found = 0 THEN
                LEAVE read_lines;
            END IF;
            SET v_lines = v_lines + 1;
        END LOOP;
        CLOSE cur_lines;
    END IF;
    COMMIT;
    SELECT v_lines AS status;
END`

var myDelivery = `
CREATE PROCEDURE tpcc_delivery(IN p_w_id INT, IN p_carrier_id INT, IN p_date DATETIME(6))
BEGIN
    DECLARE v_found INT DEFAULT 1;
    DECLARE v_msg VARCHAR(255);
    DECLARE v_d_id INT DEFAULT 1;
    DECLARE v_delivered INT DEFAULT 0;
    DECLARE v_o_id, v_c_id INT;
    DECLARE v_amount DECIMAL(12, 2);` + myHandlers + `

    START TRANSACTION;
    WHILE v_d_id <= 10 DO
        SET v_found = 1;
        SELECT no_o_id INTO v_o_id FROM new_order
         WHERE no_w_id = p_w_id AND no_d_id = v_d_id
         ORDER BY no_o_id LIMIT 1 FOR UPDATE;
        IF v_found = 1 THEN
            DELETE FROM new_order WHERE no_w_id = p_w_id AND no_d_id = v_d_id AND no_o_id = v_o_id;
            SELECT o_c_id INTO v_c_id FROM orders
             WHERE o_w_id = p_w_id AND o_d_id = v_d_id AND o_id = v_o_id FOR UPDATE;` +
	strings.ReplaceAll(myMustFind("tpcc_delivery", "order", "p_w_id", "v_d_id", "v_o_id"), "\n    ", "\n            ") + `
            UPDATE orders SET o_carrier_id = p_carrier_id
             WHERE o_w_id = p_w_id AND o_d_id = v_d_id AND o_id = v_o_id;
            UPDATE order_line SET ol_delivery_d = p_date
             WHERE ol_w_id = p_w_id AND ol_d_id = v_d_id AND ol_o_id = v_o_id;
            SELECT COALESCE(SUM(ol_amount), 0) INTO v_amount FROM order_line
             WHERE ol_w_id = p_w_id AND ol_d_id = v_d_id AND ol_o_id = v_o_id;
            UPDATE customer SET c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
             WHERE c_w_id = p_w_id AND c_d_id = v_d_id AND c_id = v_c_id;
            SET v_delivered = v_delivered + 1;
        END IF;
        SET v_d_id = v_d_id + 1;
    END WHILE;
    COMMIT;
    SELECT v_delivered AS status;
END`

var myStockLevel = `
CREATE PROCEDURE tpcc_stock_level(IN p_w_id INT, IN p_d_id INT, IN p_threshold INT)
BEGIN
    DECLARE v_found INT DEFAULT 1;
    DECLARE v_msg VARCHAR(255);
    DECLARE v_next, v_count INT;` + myHandlers + `

    START TRANSACTION READ ONLY;
    SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;` +
	myMustFind("tpcc_stock_level", "district", "p_w_id", "p_d_id") + `
    SELECT COUNT(DISTINCT s_i_id) INTO v_count
      FROM order_line JOIN stock ON s_w_id = p_w_id AND s_i_id = ol_i_id
     WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id
       AND ol_o_id >= v_next - 20 AND ol_o_id < v_next
       AND s_quantity < p_threshold;
    COMMIT;
    SELECT v_count AS status;
END`
