package htmlreport

import (
	"reflect"
	"testing"

	"github.com/dbarena/dbarena/result"
)

// A MongoDB run's summary shows its serverStatus metrics; a row whose
// metrics are not all there is left out.
func TestServerRowsMongo(t *testing.T) {
	r := &result.Run{Server: map[string]float64{
		"mongo_opcounters_insert_s": 680.5, "mongo_opcounters_query_s": 9, "mongo_opcounters_update_s": 113.9, "mongo_opcounters_delete_s": 0,
		"mongo_txn_commits_s": 113.9, "mongo_txn_aborts_s": 0.5,
		"mongo_cache_mb": 188.32, "mongo_cache_dirty_mb": 3.16,
		"mongo_tickets_read": 128, "mongo_tickets_write": 127,
		"mongo_net_in_mb_s": 0.33, "mongo_net_out_mb_s": 0.27, // no mongo_connections
	}}
	want := [][2]string{
		{"MongoDB inserts / queries / updates / deletes per s", "680.50 / 9.00 / 113.90 / 0.00"},
		{"MongoDB transactions committed / aborted per s", "113.90 / 0.50"},
		{"WiredTiger cache / dirty MB", "188.32 / 3.16"},
		{"read / write tickets available", "128.00 / 127.00"},
	}
	if got := serverRows(r); !reflect.DeepEqual(got, want) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
}
