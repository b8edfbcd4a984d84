package main

import (
	"slices"
	"testing"

	"github.com/dbarena/dbarena/server"
)

// The binary knows every managed-server kind: server/all registers them
// (server/postgres, server/mariadb), not package server.
func TestBinaryKnowsEveryKind(t *testing.T) {
	if got, want := server.Kinds(), []server.Kind{"postgres", "mariadb", "pgbouncer", "mongo"}; !slices.Equal(got, want) {
		t.Errorf("server.Kinds() = %q, want %q", got, want)
	}
}
