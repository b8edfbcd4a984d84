package consistency_test

import (
	"context"
	"fmt"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/tpcc/internal/consistency"
)

// The conditions as `dbarena tpcc --help` lists them.
func ExampleConditions() {
	for _, c := range consistency.Conditions() {
		fmt.Printf("%2d  %s\n", c.Number, c.Name)
	}
	// Output:
	//  1  W_YTD = sum(D_YTD)
	//  2  D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)
	//  3  max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER)
	//  4  sum(O_OL_CNT) = count(ORDER-LINE)
	//  5  O_CARRIER_ID null iff NEW-ORDER row
	//  6  O_OL_CNT = count(ORDER-LINE) per order
	//  7  OL_DELIVERY_D null iff O_CARRIER_ID null
	//  8  W_YTD = sum(H_AMOUNT)
	//  9  D_YTD = sum(H_AMOUNT)
	// 10  C_BALANCE = sum(OL_AMOUNT) - sum(H_AMOUNT)
	// 11  count(ORDER) - count(NEW-ORDER) = 2100
	// 12  C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT)
}

// Checking a database after a run: every violated condition is one
// problem. Condition 11 is left out, since the run's Delivery transactions
// break it; CheckWith(ctx, c, Options{Fresh: true}) checks it on a freshly
// loaded database.
func ExampleCheck() {
	ctx := context.Background()
	var c engine.SQLConn // a connection to the TPC-C database
	problems, err := consistency.Check(ctx, c)
	if err != nil {
		fmt.Println("check failed:", err)
		return
	}
	for _, p := range problems {
		fmt.Printf("%s: %s\n", p.Check, p.Detail)
	}
}
