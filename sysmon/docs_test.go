package sysmon

import (
	"os"
	"strings"
	"testing"
)

// docs/ARCHITECTURE.md names every metric and every OS setting.
func TestDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, section, ok := strings.Cut(doc, "## Server metrics (sysmon)")
	if !ok {
		t.Fatal(`docs/ARCHITECTURE.md has no section "Server metrics (sysmon)"`)
	}
	for _, m := range Metrics() {
		if !strings.Contains(section, "`"+m.Name+"`") {
			t.Errorf("metric %s is not in docs/ARCHITECTURE.md", m.Name)
		}
	}
	proc := procFixture(t)
	setFile(proc, "sys/vm/dirty_expire_centisecs", "3000")
	setFile(proc, "sys/vm/dirty_writeback_centisecs", "500")
	setFile(proc, "sys/vm/overcommit_ratio", "50")
	dev, _ := findDevice(proc, "self/mountinfo", "/var/lib/postgresql")
	for k := range osSettings(proc, sysFixture(), &dev) {
		if !strings.Contains(section, "`"+k+"`") {
			t.Errorf("OS setting %s is not in docs/ARCHITECTURE.md", k)
		}
	}
}
