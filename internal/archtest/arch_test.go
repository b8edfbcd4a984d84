package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/dbarena/dbarena"

// model is the ground floor: the vocabulary that engines, workloads and
// the reporting packages share. Its packages import no other dbarena
// package but each other.
var model = []string{
	"schema",    // declarative tables
	"metric",    // the metric registry: names, units, which way is better
	"result",    // the result file
	"histogram", // latency recorders
	"target",    // a database under test, its password, redaction
	"lockfile",  // leaves the model uses
	"outfile",
}

// deps is every dbarena package (test files left out) with the dbarena
// packages it depends on, directly or not, as go list -deps finds them;
// names are relative to the module ("engine/postgres").
func deps(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	all := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		var own []string
		for _, d := range f[1:] {
			if r, ok := relative(d); ok {
				own = append(own, r)
			}
		}
		if p, ok := relative(f[0]); ok {
			all[p] = own
		}
	}
	return all
}

// relative is p without the module's prefix, and whether p is in the
// module at all (the module itself is "").
func relative(p string) (string, bool) {
	if p == module {
		return "", true
	}
	r, ok := strings.CutPrefix(p, module+"/")
	return r, ok
}

// under tells whether p is dir or a package below it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// within lists the packages of all that are dir or below it, and fails
// when there are fewer than min: a rule about no packages holds for
// nothing.
func within(t *testing.T, all map[string][]string, dir string, min int) []string {
	t.Helper()
	var out []string
	for p := range all {
		if under(p, dir) {
			out = append(out, p)
		}
	}
	if len(out) < min {
		t.Fatalf("%d packages under %s/, want at least %d: %q", len(out), dir, min, out)
	}
	slices.Sort(out)
	return out
}

// TestImportRules fails for every import, direct or not, that breaks
// the layering: an engine that reaches a workload, a managed server or
// the execution floor (the run loop, loading), a managed server that
// reaches an engine, the run loop and loading that reach each other,
// the orchestration above them or the CLI, a model package that reaches
// anything but the model.
func TestImportRules(t *testing.T) {
	all := deps(t)
	forbid := func(from, to string, min int) {
		for _, p := range within(t, all, from, min) {
			for _, d := range all[p] {
				if under(d, to) {
					t.Errorf("%s depends on %s: nothing under %s/ may import a package under %s/", p, d, from, to)
				}
			}
		}
	}
	forbid("engine", "workload", 10)
	forbid("engine", "server", 10)
	forbid("engine", "runner", 10)
	forbid("engine", "load", 10)
	forbid("server", "engine", 1)
	// Plans and sessions run without the CLI: a pod runs them as a library.
	forbid("plan", "internal", 1)
	forbid("session", "internal", 1)
	// The execution floor: the run loop (runner, its timing models in
	// runner/timing) and loading (load) are siblings below session.
	for _, exec := range []string{"runner", "load"} {
		for _, above := range []string{"session", "plan", "internal"} {
			forbid(exec, above, 1)
		}
	}
	forbid("runner", "load", 2)
	forbid("load", "runner", 1)
	// A sharded run's coordination is below loading and the sessions
	// that use it.
	for _, above := range []string{"load", "runner", "session", "plan", "internal"} {
		forbid("shard", above, 1)
	}

	for _, m := range model {
		if _, ok := all[m]; !ok {
			t.Errorf("model package %s does not exist", m)
			continue
		}
		for _, d := range all[m] {
			if !slices.Contains(model, d) {
				t.Errorf("model package %s depends on %s, which is not in the model (%s)", m, d, strings.Join(model, ", "))
			}
		}
	}
}

// k8sImporters are the packages that may import the Kubernetes API's
// modules (k8s.io/, sigs.k8s.io/): package k8s, which writes the
// manifests of sharded runs, and internal/k8stest, its test helpers.
// Nothing else takes their weight or their types; test files may, to
// read manifests back.
var k8sImporters = []string{"k8s", "internal/k8stest"}

// TestK8sImports fails for every package but k8sImporters that imports
// a package of k8s.io/ or sigs.k8s.io/ (test files left out).
func TestK8sImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"/...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	checked, k8sImports := 0, false
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		p, ok := relative(f[0])
		if !ok {
			continue
		}
		checked++
		allowed := slices.ContainsFunc(k8sImporters, func(dir string) bool { return under(p, dir) })
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, "k8s.io/") && !strings.HasPrefix(imp, "sigs.k8s.io/") {
				continue
			}
			if p == "k8s" {
				k8sImports = true
			}
			if !allowed {
				t.Errorf("%s imports %s: only %s may import k8s.io/ and sigs.k8s.io/", p, imp, strings.Join(k8sImporters, " and "))
			}
		}
	}
	if checked < 20 || !k8sImports {
		t.Fatalf("checked %d packages, package k8s importing the API: %v; the listing found too little:\n%s", checked, k8sImports, out)
	}
}
