package script

import (
	"testing"

	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/script/lang"
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

func TestTransactionControls(t *testing.T) {
	s, err := lang.Parse("tx.sql", "BEGIN;\n  begin   work ;\nSTART TRANSACTION;\nEND;\ncommit;\nEnd Transaction;\nABORT;\nrollback work;\n"+
		"BEGIN ISOLATION LEVEL SERIALIZABLE;\nCOMMIT AND CHAIN;\nSELECT 1;\nBEGIN \\; SELECT 1;\nEND \\gset\n", lang.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := transactionControls(s)
	want := []txControl{txBegin, txBegin, txBegin, txCommit, txCommit, txCommit, txRollback, txRollback, txNone, txNone, txNone, txNone, txNone}
	if len(s.Commands) != len(want) {
		t.Fatalf("%d commands", len(s.Commands))
	}
	for i, c := range s.Commands {
		if m[c] != want[i] {
			t.Errorf("command %d %q: %d, want %d", i, c.Queries[0].Text, m[c], want[i])
		}
	}
}
