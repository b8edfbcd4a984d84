package plan_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/hostknob"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/result"
)

// The EDB guide's method: one knob at a time, each step keeping the
// knobs before it, a host knob among them.
const sequence = `
name: seq
duration: 1s
threads: [4]
targets:
  - label: pg
    url: "managed:postgres?max_connections=50"
knob_labels: {max_wal_size: wal, shared_buffers: sb, os.vm.dirty_background_ratio: dbr}
knob_sequence:
  - {}
  - max_wal_size: 16GB
  - {shared_buffers: 1GB, effective_cache_size: 3GB}
  - os.vm.dirty_background_ratio: "3"
  - shared_buffers: 2GB
workloads:
  - name: oltp_point_select
`

func TestKnobSequence(t *testing.T) {
	p := writePlan(t, t.TempDir(), sequence)
	var labels, urls []string
	for _, tg := range p.Targets {
		labels = append(labels, tg.Label)
		urls = append(urls, strings.TrimPrefix(tg.URL, "managed:postgres?max_connections=50"))
	}
	if want := []string{"pg-0", "pg-1-wal=16GB", "pg-2-sb=1GB-effective_cache_size=3GB", "pg-3-dbr=3", "pg-4-sb=2GB"}; !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	want := []string{"", "&max_wal_size=16GB", "&max_wal_size=16GB&shared_buffers=1GB&effective_cache_size=3GB",
		"&max_wal_size=16GB&shared_buffers=1GB&effective_cache_size=3GB",
		"&max_wal_size=16GB&shared_buffers=2GB&effective_cache_size=3GB"}
	if !slices.Equal(urls, want) {
		t.Errorf("URLs' knobs\n%q, want\n%q", urls, want)
	}
	for i, tg := range p.Targets {
		if hk := tg.HostKnobs; (i >= 3) != (len(hk) == 1) || (len(hk) == 1 && hk[0] != (hostknob.Setting{Name: "os.vm.dirty_background_ratio", Value: "3"})) {
			t.Errorf("%s: host knobs %+v", tg.Label, hk)
		}
	}
	if p.Change != compare.ChangeVsPrevious {
		t.Errorf("a sequence's change %q, want vs-previous", p.Change)
	}
}

func TestKnobSequenceProblems(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"knobs and sequence", strings.Replace(sequence, "knob_sequence:", "knobs: {work_mem: [4MB]}\nknob_sequence:", 1), "the plan has knobs and a knob_sequence"},
		{"empty later step", strings.Replace(sequence, "  - shared_buffers: 2GB", "  - {}", 1), "knob_sequence[4]: empty: only the first step may add no knob"},
		{"one step", "name: s\nduration: 1s\nthreads: 1\ntargets: [{label: pg, url: 'managed:postgres'}]\nknob_sequence: [{work_mem: 4MB}]\nworkloads: [{name: oltp_point_select}]\n", "knob_sequence: 1 step: give at least two"},
		{"bad host knob", strings.Replace(sequence, "os.vm.dirty_background_ratio: \"3\"", "os.fs.file-max: \"3\"", 1), "knob os.fs.file-max: want os.vm.<sysctl>"},
		{"host knob on a server not managed", "name: s\nduration: 1s\nthreads: 1\ntargets: [{label: pg, url: 'postgres://u@127.0.0.1/db', knob_sequence: [{}, {os.vm.dirty_ratio: '5'}]}]\nworkloads: [{name: oltp_point_select}]\n", "is not a managed server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.yaml")
			os.WriteFile(path, []byte(tc.src), 0o644)
			_, err := plan.Load(path, plan.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load: %v, want %q", err, tc.want)
			}
		})
	}
}

// hostFake is a /proc/sys with the knob the sequence sets, and an
// executor that reads it during each run.
type hostFake struct {
	fake
	h    hostknob.Host
	seen map[string]string // by target label, the knob's value during its run
}

func (f *hostFake) Run(ctx context.Context, c plan.Cell, rep int) (*result.File, error) {
	v, err := f.h.Read("os.vm.dirty_background_ratio")
	if err != nil {
		return nil, err
	}
	f.seen[c.Target.Label] = v
	return f.fake.Run(ctx, c, rep)
}

func TestHostKnobsSetAndRestored(t *testing.T) {
	tmp := t.TempDir()
	h := hostknob.Host{Proc: filepath.Join(tmp, "proc"), Sys: filepath.Join(tmp, "sys")}
	knob := filepath.Join(h.Proc, "sys/vm/dirty_background_ratio")
	os.MkdirAll(filepath.Dir(knob), 0o755)
	os.WriteFile(knob, []byte("10\n"), 0o644)
	os.WriteFile(filepath.Join(h.Proc, "sys/vm/dirty_background_bytes"), []byte("0\n"), 0o644)
	p := writePlan(t, tmp, sequence)
	dir := filepath.Join(tmp, "results")

	// Refused without the flag, before anything is written.
	ex := &hostFake{h: h, seen: map[string]string{}}
	_, err := plan.Run(context.Background(), p, ex, plan.RunOptions{Dir: dir, Host: &h, Now: clock()})
	if !errors.Is(err, plan.ErrHostKnobs) || !strings.Contains(err.Error(), "os.vm.dirty_background_ratio") || !strings.Contains(err.Error(), "--host-knobs") {
		t.Fatalf("without HostKnobs: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the refused plan wrote its directory: %v", err)
	}

	// A run killed with the knob set left the saved file: Run restores
	// the value first.
	os.MkdirAll(dir, 0o755)
	os.WriteFile(knob, []byte("7\n"), 0o644)
	os.WriteFile(filepath.Join(dir, plan.HostKnobsFile), []byte(`[{"name":"os.vm.dirty_background_ratio","path":"`+knob+`","was":"10"}]`), 0o644)

	var log strings.Builder
	if _, err := plan.Run(context.Background(), p, ex, plan.RunOptions{Dir: dir, Host: &h, HostKnobs: true, Now: clock(), Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "restored the host's settings a run that did not end had changed: os.vm.dirty_background_ratio=10") ||
		!strings.Contains(log.String(), "pg-3-dbr=3__oltp_point_select__t4: host settings os.vm.dirty_background_ratio=3 (was 10)") {
		t.Errorf("the log does not say what was set and restored:\n%s", log.String())
	}
	for label, want := range map[string]string{"pg-0": "10", "pg-2-sb=1GB-effective_cache_size=3GB": "10", "pg-3-dbr=3": "3", "pg-4-sb=2GB": "3"} {
		if got := ex.seen[label]; got != want {
			t.Errorf("%s ran with dirty_background_ratio %q, want %q", label, got, want)
		}
	}
	if b, _ := os.ReadFile(knob); string(b) != "10\n" {
		t.Errorf("after the plan the knob reads %q, want 10 restored", b)
	}
	if _, err := os.Stat(filepath.Join(dir, plan.HostKnobsFile)); !os.IsNotExist(err) {
		t.Errorf("%s outlives the plan: %v", plan.HostKnobsFile, err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "pg-4-*.json"))
	if len(files) != 1 {
		t.Fatalf("result files of pg-4: %q", files)
	}
	f, err := result.Read(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if f.Target.Knobs["os.vm.dirty_background_ratio"] != "3" || f.Target.Settings["os.vm.dirty_background_ratio"] != "3" {
		t.Errorf("the file's knobs %v and settings %v lack the host knob", f.Target.Knobs, f.Target.Settings)
	}
}
