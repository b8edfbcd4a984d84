package hostknob_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/hostknob"
)

// fakeHost is a /proc and /sys of files in a directory.
func fakeHost(t *testing.T) hostknob.Host {
	t.Helper()
	dir := t.TempDir()
	h := hostknob.Host{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys")}
	for p, v := range map[string]string{
		h.Proc + "/sys/vm/dirty_background_ratio":         "10\n",
		h.Proc + "/sys/vm/dirty_bytes":                    "0\n",
		h.Proc + "/sys/vm/dirty_ratio":                    "20\n",
		h.Proc + "/sys/vm/dirty_background_bytes":         "0\n",
		h.Proc + "/sys/kernel/sched_autogroup_enabled":    "1\n",
		h.Sys + "/kernel/mm/transparent_hugepage/enabled": "always [madvise] never\n",
		h.Sys + "/kernel/debug/sched/migration_cost_ns":   "500000\n",
		h.Sys + "/kernel/mm/transparent_hugepage/defrag":  "always defer defer+madvise [madvise] never\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func read(t *testing.T, h hostknob.Host, name string) string {
	t.Helper()
	v, err := h.Read(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestApplyRestore(t *testing.T) {
	h := fakeHost(t)
	save := filepath.Join(t.TempDir(), "host-knobs.json")
	a, err := h.Apply([]hostknob.Setting{{Name: "os.vm.dirty_background_ratio", Value: "5"}, {Name: "os.transparent_hugepage.enabled", Value: "never"},
		{Name: "os.kernel.sched_migration_cost_ns", Value: "50000"}}, save)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, h, "os.vm.dirty_background_ratio"); got != "5" {
		t.Errorf("dirty_background_ratio %q after Apply", got)
	}
	if got := read(t, h, "os.kernel.sched_migration_cost_ns"); got != "50000" {
		t.Errorf("sched_migration_cost_ns %q after Apply (in debugfs on this fake kernel)", got)
	}
	// Read back: the knobs and dirty_background_ratio's sibling.
	if len(a.Now) != 4 || a.Now[1] != (hostknob.Setting{Name: "os.vm.dirty_background_bytes", Value: "0"}) || a.Now[2].Value != "never" {
		t.Errorf("read back %+v", a.Now)
	}
	if _, err := os.Stat(save); err != nil {
		t.Errorf("the values replaced are not saved: %v", err)
	}
	if err := a.Restore(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"os.vm.dirty_background_ratio": "10", "os.transparent_hugepage.enabled": "madvise", "os.kernel.sched_migration_cost_ns": "500000"} {
		if got := read(t, h, name); got != want {
			t.Errorf("%s %q after Restore, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(save); !os.IsNotExist(err) {
		t.Errorf("the saved file outlives Restore: %v", err)
	}
}

// Recover restores the values an Apply saved when its Restore never ran.
func TestRecover(t *testing.T) {
	h := fakeHost(t)
	save := filepath.Join(t.TempDir(), "host-knobs.json")
	if _, err := h.Apply([]hostknob.Setting{{Name: "os.vm.dirty_background_ratio", Value: "3"}}, save); err != nil {
		t.Fatal(err)
	}
	// killed here
	was, err := h.Recover(save)
	if err != nil || len(was) != 2 || was[0].Was != "10" || was[1].Name != "os.vm.dirty_background_bytes" {
		t.Fatalf("Recover: %+v, %v (the knob and its sibling)", was, err)
	}
	if got := read(t, h, "os.vm.dirty_background_ratio"); got != "10" {
		t.Errorf("dirty_background_ratio %q after Recover", got)
	}
	if was, err := h.Recover(save); err != nil || was != nil {
		t.Errorf("a second Recover: %+v, %v", was, err)
	}
	// A saved file naming a path that is not its knob's writes nothing.
	os.WriteFile(save, []byte(`[{"name":"os.vm.dirty_bytes","path":"/etc/passwd","was":"x"}]`), 0o644)
	if _, err := h.Recover(save); err == nil || !strings.Contains(err.Error(), "/etc/passwd is not the file of knob os.vm.dirty_bytes") {
		t.Errorf("Recover of a file naming another path: %v", err)
	}
}

func TestCheck(t *testing.T) {
	h := fakeHost(t)
	err := h.Check([]hostknob.Setting{{Name: "os.vm.no_such_knob", Value: "1"}, {Name: "os.fs.file-max", Value: "1"},
		{Name: "os.transparent_hugepage.khugepaged", Value: "1"}, {Name: "os.vm.dirty_bytes", Value: ""}})
	for _, want := range []string{"knob os.vm.no_such_knob: this kernel has no", "knob os.fs.file-max: want os.vm.<sysctl>",
		"knob os.transparent_hugepage.khugepaged: transparent huge pages have enabled and defrag", "knob os.vm.dirty_bytes: empty value"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %v, want %q", err, want)
		}
	}
	if err := h.Check([]hostknob.Setting{{Name: "os.vm.dirty_bytes", Value: "1"}}); err != nil {
		t.Errorf("Check of a good knob: %v", err)
	}
}

// The kernel's pairs: vm.dirty_background_bytes and
// vm.dirty_background_ratio are one setting, one of them 0, and neither
// takes 0. Restoring the ratio restores both; this kernel's files are
// written and read back, then left as they were.
func TestRealKernelPair(t *testing.T) {
	h := hostknob.Real
	ratio := read(t, h, "os.vm.dirty_background_ratio")
	bytes := read(t, h, "os.vm.dirty_background_bytes")
	if (ratio == "0") == (bytes == "0") {
		t.Fatalf("dirty_background_ratio %s, dirty_background_bytes %s: want one of them 0", ratio, bytes)
	}
	a, err := h.Apply([]hostknob.Setting{{Name: "os.vm.dirty_background_bytes", Value: "67108864"}}, "")
	if err != nil {
		t.Fatal(err) // as root, on the test machines
	}
	if got := read(t, h, "os.vm.dirty_background_ratio"); got != "0" {
		t.Errorf("the kernel left dirty_background_ratio %s beside dirty_background_bytes", got)
	}
	if err := a.Restore(); err != nil {
		t.Fatal(err)
	}
	if r, b := read(t, h, "os.vm.dirty_background_ratio"), read(t, h, "os.vm.dirty_background_bytes"); r != ratio || b != bytes {
		t.Errorf("restored to ratio %s bytes %s, want %s and %s", r, b, ratio, bytes)
	}
}
