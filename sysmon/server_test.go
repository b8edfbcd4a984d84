package sysmon

import (
	"testing"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
)

// Server statistics are registered under the names engines register (the
// name their Dialect reports), so that Open finds them.
func TestServerStatsNamesAreEngines(t *testing.T) {
	if len(serverStats) == 0 {
		t.Fatal("no server statistics registered")
	}
	for name := range serverStats {
		if r, ok := engine.Lookup(name); !ok || r.Name != name {
			t.Errorf("server statistics %q: no engine of that name (found %q)", name, r.Name)
		}
	}
	for _, name := range []string{"postgres", "mysql"} {
		if serverStats[name] == nil {
			t.Errorf("no server statistics for %s", name)
		}
	}
}

func TestRegisterServerStatsTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering postgres twice did not panic")
		}
	}()
	registerServerStats("postgres", openPostgresStats)
}
