package all_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// forbidden are the engine implementations and drivers a workload's own
// package must not depend on: it speaks to SQL engines through
// engine.SQLConn and engine.SQLDialect only, and what a document engine
// needs lives in the workload's family subpackage.
var forbidden = []string{
	"github.com/dbarena/dbarena/engine/postgres",
	"github.com/dbarena/dbarena/engine/mysql",
	"github.com/dbarena/dbarena/engine/sqlite",
	"github.com/dbarena/dbarena/engine/mongo",
	"go.mongodb.org/",
	"github.com/jackc/",
	"github.com/go-sql-driver/",
	"modernc.org/sqlite",
}

// familyPackage reports whether pkg is a family subpackage (…/mongo,
// …/sql, or a package below one; workload/all/mongo, which imports the
// MongoDB ones, is one too): those may depend on an engine
// implementation.
func familyPackage(pkg string) bool {
	const root = "github.com/dbarena/dbarena/workload/"
	rest, ok := strings.CutPrefix(pkg, root)
	if !ok {
		return false
	}
	parts := strings.Split(rest, "/")
	return slices.Contains(parts, "mongo") || slices.Contains(parts, "sql")
}

// TestWorkloadsImportNoEngine lists the non-test dependencies of every
// package under workload/ except the family subpackages (workload/all
// included), and fails for each engine implementation or driver among them.
func TestWorkloadsImportNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}",
		"github.com/dbarena/dbarena/workload/...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || familyPackage(fields[0]) {
			continue
		}
		checked++
		for _, f := range forbidden {
			// One error per forbidden entry, naming its first package.
			for _, dep := range fields[1:] {
				if dep == f || strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f) {
					t.Errorf("%s depends on %s", fields[0], dep)
					break
				}
			}
		}
	}
	// workload, workload/oltp, airline, payments, tpcc and tpcc's
	// internal packages at least: a listing that found none checked
	// nothing.
	if checked < 5 {
		t.Fatalf("checked %d packages under workload/, want at least 5:\n%s", checked, out)
	}
}

func TestFamilyPackage(t *testing.T) {
	for pkg, want := range map[string]bool{
		"github.com/dbarena/dbarena/workload":                     false,
		"github.com/dbarena/dbarena/workload/oltp":                false,
		"github.com/dbarena/dbarena/workload/tpcc/internal/procs": false,
		"github.com/dbarena/dbarena/workload/oltp/mongo":          true,
		"github.com/dbarena/dbarena/workload/airline/mongo/x":     true,
		"github.com/dbarena/dbarena/workload/payments/sql":        true,
		"github.com/dbarena/dbarena/workload/all":                 false,
		"github.com/dbarena/dbarena/workload/all/mongo":           true,
		"github.com/dbarena/dbarena/engine/mongo":                 false,
	} {
		if got := familyPackage(pkg); got != want {
			t.Errorf("familyPackage(%s) = %v, want %v", pkg, got, want)
		}
	}
}

// TestWorkloadsImportNoDrive fails for each package under workload/
// (family subpackages included) that imports package drive: a worker
// waits for time through its WorkerEnv.Sleep, which the runner provides,
// and never chooses how it waits itself.
func TestWorkloadsImportNoDrive(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}",
		"github.com/dbarena/dbarena/workload/...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, line := range lines {
		fields := strings.Fields(line)
		if len(fields) > 0 && slices.Contains(fields[1:], "github.com/dbarena/dbarena/drive") {
			t.Errorf("%s imports package drive", fields[0])
		}
	}
	if len(lines) < 5 {
		t.Fatalf("listed %d packages under workload/, want at least 5:\n%s", len(lines), out)
	}
}
