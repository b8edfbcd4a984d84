package result

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
)

func sample() *File {
	return &File{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "dbarena", Version: "1.2.3", Commit: "abc"},
		Workload:      Workload{Name: "oltp_read_write", Version: "1", Options: map[string]string{"tables": "8"}},
		Target:        Target{Label: "pg", Engine: "postgres", URL: "postgres://bench@127.0.0.1:5432/bench", ServerVersion: "PostgreSQL 15.18", Settings: map[string]string{"shared_buffers": "128MB"}},
		Client:        Client{Hostname: "h", CPUModel: "cpu", Cores: 2, MemoryBytes: 1 << 30, OS: "linux/amd64", GoVersion: "go1.26", RTTMS: 0.05},
		Seed:          1,
		StartedAt:     time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		FinishedAt:    time.Date(2026, 11, 21, 12, 1, 0, 0, time.UTC),
		Runs: []Run{{
			Threads: 8, DurationS: 60, Transactions: 600, TPS: 10, Queries: 12000, QPS: 200,
			LatencyMS: histogram.Latency{Min: 1, Mean: 2, P50: 2, P95: 3, P99: 4, P999: 5, Max: 6},
			Ops:       []Op{{Name: "oltp_read_write", Count: 600, HDR: "HISTFAAAA"}},
			Intervals: []Interval{{TS: 1, LengthS: 1, TPS: 10, QPS: 200, Ops: []IntervalOp{{Op: 0, Count: 10, HDR: "HISTFAAAA"}}}, {TS: 2, Warmup: true}},
			Status:    StatusComplete,
		}},
		Status: StatusComplete,
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	f := sample()
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f, back) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", back, f)
	}
}

// The documented field names are the contract with reports and other
// tools: pin them.
func TestFieldNames(t *testing.T) {
	b, err := json.Marshal(sample())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema_version", "tool", "workload", "target", "client", "runs", "status", "seed"} {
		if _, ok := m[k]; !ok {
			t.Errorf("top-level field %q missing", k)
		}
	}
	run := m["runs"].([]any)[0].(map[string]any)
	for _, k := range []string{"threads", "duration_s", "warmup_s", "transactions", "tps", "queries", "qps", "errors", "retries", "latency_ms", "client_cpu_s", "ops", "intervals", "status"} {
		if _, ok := run[k]; !ok {
			t.Errorf("run field %q missing", k)
		}
	}
	lat := run["latency_ms"].(map[string]any)
	for _, k := range []string{"min", "mean", "p50", "p95", "p99", "p999", "max"} {
		if _, ok := lat[k]; !ok {
			t.Errorf("latency_ms field %q missing", k)
		}
	}
	iv := run["intervals"].([]any)[0].(map[string]any)
	for _, k := range []string{"t_s", "length_s", "tps", "qps", "errors", "latency_ms", "ops"} {
		if _, ok := iv[k]; !ok {
			t.Errorf("interval field %q missing", k)
		}
	}
	ivop := iv["ops"].([]any)[0].(map[string]any)
	for _, k := range []string{"op", "count", "hdr"} {
		if _, ok := ivop[k]; !ok {
			t.Errorf("interval op field %q missing", k)
		}
	}
	for _, k := range []string{"label", "engine", "url", "server_version", "settings"} {
		if _, ok := m["target"].(map[string]any)[k]; !ok {
			t.Errorf("target field %q missing", k)
		}
	}
	for _, k := range []string{"hostname", "cpu_model", "cores", "memory_bytes", "os", "go_version", "rtt_ms"} {
		if _, ok := m["client"].(map[string]any)[k]; !ok {
			t.Errorf("client field %q missing", k)
		}
	}
}

func TestRejectsUnknownSchema(t *testing.T) {
	for _, in := range []string{`{"schema_version": 0}`, `{"schema_version": 99}`, `not json`, `{}`} {
		if _, err := Decode([]byte(in)); !errors.Is(err, ErrSchema) {
			t.Errorf("Decode(%s) = %v, want ErrSchema", in, err)
		}
	}
}

// A write into a directory that does not exist fails with the flag name
// and leaves nothing behind; a successful write leaves no temporary file.
// A result file gets the usual mode, 0644 under the usual umask: it
// holds no secret.
func TestWriteMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	if err := Write(path, &File{SchemaVersion: SchemaVersion, Status: StatusComplete}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("result file mode %v, want 0644", st.Mode().Perm())
	}
}

func TestWriteLeavesNothingHalfWritten(t *testing.T) {
	dir := t.TempDir()
	err := Write(filepath.Join(dir, "missing", "r.json"), sample())
	if err == nil || !strings.Contains(err.Error(), "--out") {
		t.Fatalf("Write into a missing dir = %v, want an --out error", err)
	}
	if err := Write(filepath.Join(dir, "r.json"), sample()); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "r.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only r.json", names)
	}
}
