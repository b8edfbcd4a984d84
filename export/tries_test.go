package export_test

import (
	"bytes"
	"testing"

	"github.com/dbarena/dbarena/export"
	"github.com/dbarena/dbarena/result"
)

// One line per try; a failed try's seconds are empty, never 0.
func TestTriesCSV(t *testing.T) {
	s := 1.25
	f := &result.File{
		Workload: result.Workload{Name: "docolap"},
		Target:   result.Target{Label: "pg", Engine: "postgres"},
		Runs: []result.Run{{Threads: 1, Tries: &result.Tries{Count: 2, Queries: []result.QueryTries{{Name: "A", Tries: []result.Try{
			{Label: result.LabelLukewarm, S: &s, Rows: 3, Hash: "abc"},
			{Label: result.LabelHot, Error: "query A timed out after 1s (--query-timeout)"},
		}}}}}},
	}
	tbl, err := export.Build("tries", []export.Input{{Path: "pg.json", File: f}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := export.WriteCSV(&b, tbl); err != nil {
		t.Fatal(err)
	}
	want := `file,label,engine,workload,threads,query,try,try_label,s,error,rows,hash
pg.json,pg,postgres,docolap,1,A,1,lukewarm,1.25,,3,abc
pg.json,pg,postgres,docolap,1,A,2,hot,,query A timed out after 1s (--query-timeout),0,
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
