package compare

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/result"
)

func s(v float64) *float64 { return &v }

// triesFile is a docolap result file of one run whose query q took the
// times given (nil: failed), answering rows rows of hash hash.
func triesFile(label, first string, hash string, queries map[string][]*float64) *result.File {
	run := result.Run{Threads: 1, Status: result.StatusComplete, Tries: &result.Tries{Count: 3}}
	for _, q := range []string{"A", "B"} {
		qt := result.QueryTries{Name: q}
		for i, v := range queries[q] {
			tr := result.Try{Label: result.LabelHot, S: v, Rows: 2, Hash: hash}
			if i == 0 {
				tr.Label = first
			}
			if v == nil {
				tr.Rows, tr.Hash, tr.Error = 0, "", "timed out"
			}
			qt.Tries = append(qt.Tries, tr)
		}
		run.Tries.Queries = append(run.Tries.Queries, qt)
	}
	return &result.File{
		Workload: result.Workload{Name: "docolap", Options: map[string]string{"events": "1000"}},
		Target:   result.Target{Label: label, Engine: label, ServerVersion: label + " 1"},
		Runs:     []result.Run{run},
		Status:   result.StatusComplete,
	}
}

// The study's table: per query, each engine's cold and hot time and the
// speedup (S−F)/S with the faster named, computed by hand here; a failed
// time is null, never 0, and has no speedup.
func TestTriesTable(t *testing.T) {
	pg := triesFile("postgres", result.LabelCold, "h1", map[string][]*float64{
		"A": {s(10), s(5), s(4)},
		"B": {s(2), nil, nil},
	})
	mongo := triesFile("mongodb", result.LabelLukewarm, "h1", map[string][]*float64{
		"A": {s(8), s(6), s(7)},
		"B": {s(1), s(1), s(1.5)},
	})
	tables, err := BuildTries([]Input{{Path: "pg.json", File: pg}, {Path: "mongo.json", File: mongo}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 {
		t.Fatalf("%d tables", len(tables))
	}
	tt := tables[0]
	want := [][]string{
		// A cold: (10−8)/10 = 20 %, mongodb faster; hot: pg 4, mongo 6: (6−4)/6 = 33.33 %, postgres.
		{"A", "10.00", "8.000", "20.00% mongodb", "4.000 (4.000–5.000)", "6.000 (6.000–7.000)", "33.33% postgres"},
		// B cold: (2−1)/2 = 50 %; pg's hot tries all failed: null, no speedup.
		{"B", "2.000", "1.000", "50.00% mongodb", "null [2 failed]", "1.000 (1.000–1.500)", "—"},
	}
	if h := strings.Join(tt.Header(), "|"); h != "query|postgres cold|mongodb cold|cold % speedup|postgres hot|mongodb hot|hot % speedup" {
		t.Errorf("header %s", h)
	}
	got := tt.Cells()
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d\n got %q\nwant %q", i, got[i], want[i])
		}
	}
	var b strings.Builder
	if err := WriteTriesText(&b, tables); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "note: first tries: postgres cold; mongodb lukewarm") {
		t.Errorf("no note on the first tries:\n%s", b.String())
	}
	if strings.Contains(b.String(), "answers differ") {
		t.Errorf("answers alike noted as differing:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "note: answers: every column returned identical answers to all 2 queries") {
		t.Errorf("no line saying the answers agree:\n%s", b.String())
	}
}

// Engines whose answers differ are named under the table, with the
// query.
func TestTriesAnswersDiffer(t *testing.T) {
	times := map[string][]*float64{"A": {s(1), s(1)}, "B": {s(1), s(1)}}
	a := triesFile("postgres", result.LabelCold, "h1", times)
	b := triesFile("mongodb", result.LabelCold, "h1", times)
	b.Runs[0].Tries.Queries[1].Tries[0].Hash = "h2" // B's first try on mongodb
	b.Runs[0].Tries.Queries[1].Tries[1].Hash = "h2"
	tables, err := BuildTries([]Input{{File: a}, {File: b}}, "mongodb")
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := WriteTriesMarkdown(&md, tables); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "- query B: the answers differ: postgres 2 rows (h1), mongodb 2 rows (h2)") {
		t.Errorf("no note naming B and the engines:\n%s", md.String())
	}
	if strings.Contains(md.String(), "query A:") || strings.Contains(md.String(), "identical answers") {
		t.Errorf("A noted, or the answers said to agree:\n%s", md.String())
	}
	if tables[0].Baseline != 1 {
		t.Errorf("baseline %d, want mongodb's column 1", tables[0].Baseline)
	}
	if _, err := BuildTries([]Input{{File: a}}, "nope"); err == nil || !strings.Contains(err.Error(), `--baseline "nope"`) {
		t.Errorf("unknown baseline: %v", err)
	}
}

func TestSpeedup(t *testing.T) {
	for _, c := range []struct {
		a, b   *float64
		pct    float64
		faster int
		ok     bool
	}{
		{s(10), s(5), 50, 1, true},
		{s(5), s(10), 50, 0, true},
		{s(3), s(3), 0, 1, true},
		{nil, s(3), 0, 0, false},
		{s(3), nil, 0, 0, false},
	} {
		pct, faster, ok := Speedup(Timing{Best: c.a}, Timing{Best: c.b})
		if pct != c.pct || faster != c.faster || ok != c.ok {
			t.Errorf("Speedup(%v, %v) = %v %v %v, want %v %v %v", c.a, c.b, pct, faster, ok, c.pct, c.faster, c.ok)
		}
	}
}

// The note on the first tries says how they ran when not cold
// everywhere, and why for lukewarm ones, by the cold mode the files
// record: none at all when every column's were restarted alike.
func TestFirstTriesNote(t *testing.T) {
	times := map[string][]*float64{"A": {s(2), s(1)}, "B": {s(2), s(1)}}
	file := func(label, first, mode string) Input {
		f := triesFile(label, first, "h1", times)
		if mode != "" {
			f.Workload.Options["cold"] = mode
		}
		return Input{Path: label + ".json", File: f}
	}
	kept := result.LabelColdCacheKept
	for _, tc := range []struct {
		name string
		in   []Input
		want string
	}{
		{"cold everywhere", []Input{file("pg", result.LabelCold, "drop-caches"), file("mongo", result.LabelCold, "drop-caches")}, ""},
		{"restarted everywhere", []Input{file("pg", kept, "restart"), file("mongo", kept, "restart")},
			"first tries: cold (server restarted, OS cache kept) in every column"},
		{"one lukewarm by --cold none", []Input{file("pg", kept, "restart"), file("mongo", result.LabelLukewarm, "none")},
			"first tries: pg cold (server restarted, OS cache kept); mongo lukewarm (--cold none: the server was not restarted before them)"},
		{"an older file's lukewarm", []Input{file("pg", result.LabelCold, ""), file("mongo", result.LabelLukewarm, "")},
			"first tries: pg cold; mongo lukewarm (a target dbarena cannot restart, not a managed server)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tables, err := BuildTries(tc.in, "")
			if err != nil {
				t.Fatal(err)
			}
			if got := tables[0].FirstTriesNote(); got != tc.want {
				t.Errorf("note\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The table relative to the best, JSONBench's layout: each column's cold
// and hot time with its ratio to the fastest column's, worked by hand;
// a failed time is null; the storage rows show MB and the total's ratio
// to the smallest.
func TestTriesRelative(t *testing.T) {
	pg := triesFile("postgres", result.LabelCold, "h1", map[string][]*float64{
		"A": {s(10), s(5), s(4)},
		"B": {s(2), nil, nil},
	})
	pg.Runs[0].Tries.Storage = []result.TableStorage{{Table: "bluesky", DataBytes: 587e6, IndexBytes: 144e6, TotalBytes: 731e6}}
	mongo := triesFile("mongodb", result.LabelLukewarm, "h1", map[string][]*float64{
		"A": {s(8), s(6), s(7)},
		"B": {s(1), s(1), s(1.5)},
	})
	mongo.Runs[0].Tries.Storage = []result.TableStorage{{DataBytes: 100e6, IndexBytes: 50e6, TotalBytes: 150e6}, {DataBytes: 50e6, IndexBytes: 0, TotalBytes: 50e6}}
	tables, err := BuildTries([]Input{{Path: "pg.json", File: pg}, {Path: "mongo.json", File: mongo}}, "")
	if err != nil {
		t.Fatal(err)
	}
	tt := tables[0]
	if h := strings.Join(tt.RelativeHeader(), "|"); h != "query|postgres cold|postgres hot|mongodb cold|mongodb hot" {
		t.Errorf("header %s", h)
	}
	want := [][]string{
		// A: cold best 8 (10/8 = 1.25), hot best 4 (6/4 = 1.50).
		{"A", "10.00 (×1.25)", "4.000 (×1.00)", "8.000 (×1.00)", "6.000 (×1.50)"},
		{"B", "2.000 (×2.00)", "null", "1.000 (×1.00)", "1.000 (×1.00)"},
		{"storage: data, MB", "587.0", "", "150.0", ""},
		{"storage: indexes, MB", "144.0", "", "50.0", ""},
		// Totals 731 and 200 MB: 731/200 = 3.655.
		{"storage: total, MB", "731.0 (×3.65)", "", "200.0 (×1.00)", ""},
	}
	got := tt.RelativeCells()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d\n got %q\nwant %q", i, got[i], want[i])
		}
	}
	var b strings.Builder
	if err := WriteTriesMarkdown(&b, tables); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| A | 10.00 (×1.25) | 4.000 (×1.00) | 8.000 (×1.00) | 6.000 (×1.50) |") {
		t.Errorf("markdown has no relative table:\n%s", b.String())
	}
}
