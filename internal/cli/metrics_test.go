package cli_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/result"
)

// An address that cannot be served on is bad input, reported before the
// run: no result file is written.
func TestMetricsAddrInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	u := oltpSQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	o := dbarena(t, context.Background(), nil, "run", "oltp_read_only", "--tables", "1", "--table-size", "1000", "--target", u, "--time", "1s",
		"--metrics-addr", ln.Addr().String(), "--out", out)
	if o.code != cli.ExitUsage || !strings.Contains(o.stderr, "--metrics-addr "+ln.Addr().String()+": cannot serve metrics") {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	if _, err := result.Read(out); err == nil {
		t.Error("a result file was written")
	}
	if strings.Contains(o.stdout, "running") {
		t.Errorf("the run started:\n%s", o.stdout)
	}
}

// dbarena run --metrics-addr serves /metrics while the run goes.
func TestRunServesMetrics(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	u := oltpSQLite(t)
	done := make(chan outcome)
	go func() {
		done <- dbarena(t, context.Background(), nil, "run", "oltp_read_only", "--tables", "1", "--table-size", "1000", "--target", u, "--time", "2s",
			"--report-interval", "200ms", "--metrics-addr", addr)
	}()
	served := false
	for !served {
		select {
		case o := <-done:
			t.Fatalf("the run ended (exit %d) before /metrics showed its transactions: %s", o.code, o.stderr)
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		served = strings.Contains(b.String(), `dbarena_transactions_total{op="oltp_read_only",phase="measured",run="threads=1",target="sqlite",workload="oltp_read_only"}`)
	}
	if o := <-done; o.code != 0 || !strings.Contains(o.stdout, "serving metrics on http://"+addr+"/metrics") {
		t.Errorf("exit %d: %s%s", o.code, o.stdout, o.stderr)
	}
}

// scrape returns the text of addr's /metrics, "" when it cannot be read.
func scrape(addr string) string {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// A plan's runs are labelled by thread count and repetition, counted
// from 1 as the plan counts them: its one repetition is #1.
func TestPlanServesMetricsByRepetition(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	yaml := "name: reps\nduration: 3s\nthreads: [1]\nreport_interval: 200ms\nrepetitions: 1\ntargets:\n  - label: lite\n    url: sqlite://" + filepath.Join(dir, "p.db") +
		"\nworkloads:\n  - name: oltp_read_only\n    options: {tables: 1, table_size: 1000}\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan outcome)
	go func() {
		done <- dbarena(t, context.Background(), nil, "plan", "run", file, "-o", filepath.Join(dir, "out"), "--metrics-addr", addr)
	}()
	for {
		select {
		case o := <-done:
			t.Fatalf("the plan ended (exit %d) before /metrics showed its run: %s%s", o.code, o.stdout, o.stderr)
		case <-time.After(100 * time.Millisecond):
		}
		text := scrape(addr)
		if !strings.Contains(text, "dbarena_transactions_total{") {
			continue
		}
		if !strings.Contains(text, `run="threads=1#1"`) {
			i := strings.Index(text, "dbarena_transactions_total{")
			t.Errorf("the plan's first repetition is not labelled threads=1#1: %s", text[i:min(len(text), i+200)])
		}
		break
	}
	if o := <-done; o.code != 0 {
		t.Errorf("exit %d: %s%s", o.code, o.stdout, o.stderr)
	}
}
