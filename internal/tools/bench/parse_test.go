package main

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParsePgbench(t *testing.T) {
	for _, tc := range []struct {
		file string
		want pgbenchSummary
	}{
		{"pgbench-select-only.txt", pgbenchSummary{Transactions: 44724, TPS: 24007.755658}},
		{"pgbench-tpcb-like.txt", pgbenchSummary{Transactions: 2596, TPS: 1323.121445}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := parsePgbench(readTestdata(t, tc.file))
			if err != nil || got != tc.want {
				t.Errorf("parsePgbench = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	if _, err := parsePgbench("pgbench: error: connection refused\n"); err == nil {
		t.Error("parsePgbench of an error: no error")
	}
}

func TestParseSysbench(t *testing.T) {
	got, err := parseSysbench(readTestdata(t, "sysbench-point-select.txt"))
	want := sysbenchSummary{Transactions: 93542, Queries: 93542, QPS: 46271.45}
	if err != nil || got != want {
		t.Errorf("parseSysbench = %+v, %v; want %+v", got, err, want)
	}
	if _, err := parseSysbench("FATAL: connection failed\n"); err == nil {
		t.Error("parseSysbench of an error: no error")
	}
}

func TestParseGoTPC(t *testing.T) {
	out := readTestdata(t, "go-tpc-run.txt")
	sum, err := parseGoTPC(out, "Summary")
	want := goTPCCounts{Transactions: 210 + 2107 + 176 + 1967 + 198, NewOrders: 2107}
	if err != nil || sum != want {
		t.Errorf("Summary = %+v, %v; want %+v", sum, err, want)
	}
	cur, err := parseGoTPC(out, "Current")
	want = goTPCCounts{Transactions: 108 + 1074 + 74 + 928 + 93, NewOrders: 1074}
	if err != nil || cur != want {
		t.Errorf("Current = %+v, %v; want %+v", cur, err, want)
	}
	// Failed transactions come in lines of their own, OP_ERR.
	withErr := out + "[Summary] NEW_ORDER_ERR - Takes(s): 6.0, Count: 7, TPM: 70.0, Sum(ms): 1.0, Avg(ms): 1.0\n"
	if got, _ := parseGoTPC(withErr, "Summary"); got.Errors != 7 || got.NewOrders != 2107 {
		t.Errorf("with NEW_ORDER_ERR: %+v", got)
	}
	if v, err := parseGoTPCtpmC(out); err != nil || v != 21181.5 {
		t.Errorf("tpmC = %v, %v", v, err)
	}
	if _, err := parseGoTPC("Finished\n", "Summary"); err == nil {
		t.Error("no [Summary] lines: no error")
	}
}

func TestParseGoYCSB(t *testing.T) {
	got, err := parseGoYCSB(readTestdata(t, "go-ycsb-run.txt"))
	want := goYCSBSummary{Reads: 12710, ReadErrors: 8, Connected: true}
	if err != nil || got != want {
		t.Errorf("parseGoYCSB = %+v, %v; want %+v", got, err, want)
	}
	// The load's report (INSERT) has no reads.
	if _, err := parseGoYCSB("Run finished, takes 1s\nINSERT - Takes(s): 0.8, Count: 1000, OPS: 1180.2\n"); err == nil {
		t.Error("no READ line: no error")
	}
}

func TestDbarenaLoadSeconds(t *testing.T) {
	got, err := dbarenaLoadSeconds("x\nprepared docolap: 1000000 rows in after 1m6.201s, indexes 12.5s, total 1m20s\n")
	if err != nil || math.Abs(got-66.201) > 1e-9 {
		t.Errorf("dbarenaLoadSeconds = %v, %v", got, err)
	}
}

func TestShownHidesSecrets(t *testing.T) {
	got := shown([]string{"/tmp/x/dbarena", "run", "--target", "postgres://bench:S3cret@127.0.0.1:5432/db?sslmode=disable", "--time", "10s"}, "S3cret")
	want := "dbarena run --target 'postgres://bench:xxxxx@127.0.0.1:5432/db?sslmode=disable' --time 10s"
	if got != want || strings.Contains(got, "S3cret") {
		t.Errorf("shown = %q; want %q", got, want)
	}
}

func TestParsePsqlCopy(t *testing.T) {
	n, err := parsePsqlCopy(readTestdata(t, "psql-copy.txt"))
	if err != nil || n != 20000 {
		t.Errorf("parsePsqlCopy = %d, %v; want 20000", n, err)
	}
	if _, err := parsePsqlCopy("/tmp/x: No such file or directory\n"); err == nil {
		t.Error("parsePsqlCopy of an error: no error")
	}
}

func TestParseMongoload(t *testing.T) {
	for _, tc := range []struct {
		file string
		want mongoloadLine
	}{
		{"mongoload-encode.txt", mongoloadLine{Docs: 20000, JSONBytes: 50835209, BSONBytes: 51437911}},
		{"mongoload-load.txt", mongoloadLine{Docs: 20000, BSONBytes: 51437911, LoadS: 1.994, IndexS: 0.703, Version: "6.0.5", Loaded: true}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := parseMongoload(readTestdata(t, tc.file))
			if err != nil || got != tc.want {
				t.Errorf("parseMongoload = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	if _, err := parseMongoload("mongoload: collection x.y exists\n"); err == nil {
		t.Error("parseMongoload of an error: no error")
	}
}

func TestDbarenaLoadSecondsDocolap(t *testing.T) {
	got, err := dbarenaLoadSeconds(readTestdata(t, "dbarena-prepare-docolap.txt"))
	if err != nil || math.Abs(got-0.58) > 1e-9 {
		t.Errorf("dbarenaLoadSeconds = %v, %v; want 0.58", got, err)
	}
}

// The defaults -h prints keep their units: 30s, not "3".
func TestSecondsString(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second:        "30s",
		10 * time.Second:        "10s",
		90 * time.Second:        "1m30s",
		time.Minute:             "1m",
		1500 * time.Millisecond: "1.5s",
	} {
		if got := (&seconds{d}).String(); got != want {
			t.Errorf("seconds{%v}.String() = %q, want %q", d, got, want)
		}
	}
}
