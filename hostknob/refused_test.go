package hostknob

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A value the kernel does not take (EINVAL on write) fails Apply, which
// restores what it had set already and removes its saved file.
func TestApplyRefused(t *testing.T) {
	dir := t.TempDir()
	h := Host{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys")}
	for _, k := range []string{"swappiness", "nr_hugepages"} {
		os.MkdirAll(h.Proc+"/sys/vm", 0o755)
		if err := os.WriteFile(h.Proc+"/sys/vm/"+k, []byte("0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile = func(name string, b []byte, mode os.FileMode) error {
		if strings.HasSuffix(name, "nr_hugepages") {
			return &os.PathError{Op: "write", Path: name, Err: syscall.EINVAL}
		}
		return os.WriteFile(name, b, mode)
	}
	defer func() { writeFile = os.WriteFile }()
	save := filepath.Join(dir, "host-knobs.json")
	_, err := h.Apply([]Setting{{Name: "os.vm.swappiness", Value: "1"}, {Name: "os.vm.nr_hugepages", Value: "38912"}}, save)
	if err == nil || !strings.Contains(err.Error(), "knob os.vm.nr_hugepages=38912") || !strings.Contains(err.Error(), "invalid argument") {
		t.Fatalf("Apply: %v", err)
	}
	if v, _ := h.Read("os.vm.swappiness"); v != "0" {
		t.Errorf("swappiness %q: not restored after the failed Apply", v)
	}
	if _, err := os.Stat(save); !os.IsNotExist(err) {
		t.Errorf("the saved file outlives the restore: %v", err)
	}
}
