package script

import (
	"testing"

	"github.com/dbarena/dbarena/workload"
)

func TestCountClassifiesByFirstWord(t *testing.T) {
	var q workload.Queries
	for _, s := range []string{"SELECT 1", " (select 1)", "with x as (select 1) select * from x", "VALUES (1)", "show x", "table t",
		"INSERT INTO t VALUES (1)", "update t set a = 1", "\n Delete from t", "MERGE INTO t", "replace into t values (1)", "copy t from stdin",
		"BEGIN", "END", "commit", "SET x = 1", "", "selected"} {
		count(&q, s)
	}
	if want := (workload.Queries{Reads: 6, Writes: 6, Other: 6}); q != want {
		t.Errorf("counted %+v, want %+v", q, want)
	}
}
