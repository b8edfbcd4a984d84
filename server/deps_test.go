package server_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerImportsNoDriver lists the non-test dependencies of package
// server and fails for each engine implementation or driver among them:
// the kinds and what they need to talk to their servers live in packages
// of their own (server/postgres, server/mariadb).
func TestServerImportsNoDriver(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/dbarena/dbarena/server").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps printed %d packages: %q", len(deps), out)
	}
	for _, dep := range deps {
		for _, f := range []string{"github.com/dbarena/dbarena/engine/", "github.com/jackc/", "github.com/go-sql-driver/", "go.mongodb.org/", "modernc.org/sqlite"} {
			if strings.HasPrefix(dep, f) {
				t.Errorf("package server depends on %s", dep)
			}
		}
	}
}

// TestServerNamesNoKind reads the package's non-test source and fails
// for each identifier or string that names a kind of server: the core
// asks the registered definitions.
func TestServerNamesNoKind(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"postgres", "mariadb", "mysql", "pgbouncer", "bouncer"}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			var text string
			switch n := n.(type) {
			case *ast.Ident:
				text = n.Name
			case *ast.BasicLit:
				text = n.Value
			default:
				return true
			}
			for _, w := range words {
				if strings.Contains(strings.ToLower(text), w) {
					t.Errorf("%s: %s names a kind (%s)", fset.Position(n.Pos()), text, w)
				}
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("checked %d files", checked)
	}
}
