package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goFiles parses every non-test Go file under the module's root dir
// (relative, "" for the whole module), skipping testdata.
func goFiles(t *testing.T, dir string) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	root := filepath.Join("..", "..", dir)
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), path)
		files[filepath.ToSlash(rel)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files under %s", root)
	}
	return fset, files
}

// workloadInterfaces are the interfaces package workload declares.
func workloadInterfaces(t *testing.T) []string {
	t.Helper()
	_, files := goFiles(t, "workload")
	var out []string
	for path, f := range files {
		if filepath.Dir(path) != "workload" {
			continue
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if _, ok := ts.Type.(*ast.InterfaceType); ok {
					out = append(out, ts.Name.Name)
				}
			}
		}
	}
	return out
}

// TestFewCapabilityAssertions: a workload's abilities are fields of its
// Spec, not interfaces found by type assertion. At most five places in
// the code assert a value to one of package workload's interfaces (the
// runner's three optional worker abilities among them).
func TestFewCapabilityAssertions(t *testing.T) {
	ifaces := workloadInterfaces(t)
	fset, files := goFiles(t, "")
	var found []string
	for path, f := range files {
		inWorkload := filepath.Dir(path) == "workload"
		ast.Inspect(f, func(n ast.Node) bool {
			ta, ok := n.(*ast.TypeAssertExpr)
			if !ok || ta.Type == nil {
				return true
			}
			name := ""
			switch typ := ta.Type.(type) {
			case *ast.SelectorExpr:
				if x, ok := typ.X.(*ast.Ident); ok && x.Name == "workload" {
					name = typ.Sel.Name
				}
			case *ast.Ident:
				if inWorkload {
					name = typ.Name
				}
			}
			if name != "" && slices.Contains(ifaces, name) {
				found = append(found, fset.Position(ta.Pos()).String()+": workload."+name)
			}
			return true
		})
	}
	slices.Sort(found)
	if len(found) > 5 {
		t.Errorf("%d type assertions to workload interfaces, want at most 5:\n%s", len(found), strings.Join(found, "\n"))
	}
	t.Logf("%d type assertions to workload interfaces:\n%s", len(found), strings.Join(found, "\n"))
}

// engineNames are the names engines go by in URLs and dialects.
var engineNames = []string{"postgres", "postgresql", "mysql", "mariadb", "sqlite", "mongodb", "mongo", "pgbouncer"}

// TestNoEngineNamesInWorkloads: workloads tell engines apart by their
// capabilities and by registering parts for an engine.Kind, never by
// comparing an engine's name to a string.
func TestNoEngineNamesInWorkloads(t *testing.T) {
	fset, files := goFiles(t, "workload")
	var found []string
	isName := func(e ast.Expr) bool {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return false
		}
		v, err := strconv.Unquote(lit.Value)
		return err == nil && slices.Contains(engineNames, v)
	}
	for path, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isName(n.X) || isName(n.Y)) {
					found = append(found, fset.Position(n.Pos()).String())
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isName(e) {
						found = append(found, fset.Position(e.Pos()).String())
					}
				}
			}
			return true
		})
		_ = path
	}
	slices.Sort(found)
	if len(found) > 0 {
		t.Errorf("workloads compare engine names to strings:\n%s", strings.Join(found, "\n"))
	}
}
