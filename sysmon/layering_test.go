package sysmon

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// engineWords are what would name an engine in sysmon's code: engines'
// names, their metric and counter prefixes, their process names.
var engineWords = []string{"postgres", "postmaster", "pg_", "pg.", "mysql", "mariadb", "innodb", "mongo", "sqlite"}

// sysmon names no engine: every engine's statistics, process names and
// metrics come from its registration (engine.ServerStats). The package's
// non-test code has no identifier or string literal naming one, and
// imports no engine implementation.
func TestNamesNoEngine(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(name, -1, len(src)), src, nil, 0) // comments are skipped
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.IDENT && tok != token.STRING {
				continue
			}
			text := lit
			if tok == token.STRING {
				if u, err := strconv.Unquote(lit); err == nil {
					text = u
				}
				if strings.HasPrefix(text, "github.com/dbarena/dbarena/engine/") {
					t.Errorf("%s: imports %s", fset.Position(pos), text)
				}
			}
			low := strings.ToLower(text)
			for _, w := range engineWords {
				if strings.Contains(low, w) {
					t.Errorf("%s: %s names an engine (%q)", fset.Position(pos), lit, w)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files")
	}
}
