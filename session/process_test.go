package session_test

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/drive"
	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/session"
)

// Engines as the process policy sees them, by their capabilities:
// served over a network, driven by client threads (PostgreSQL's) or
// embedded (SQLite).
type capsEngine struct {
	engine.Engine
	caps engine.Capabilities
}

func (e capsEngine) Dialect() engine.Dialect { return capsDialect{e.caps} }

type capsDialect struct{ caps engine.Capabilities }

func (capsDialect) Name() string                        { return "test" }
func (d capsDialect) Family() engine.Family             { return d.caps.Family }
func (capsDialect) Classify(error) engine.ErrorClass    { return engine.ClassOther }
func (d capsDialect) Capabilities() engine.Capabilities { return d.caps }

var (
	networkEngine  = capsEngine{caps: engine.Capabilities{Family: engine.FamilySQL}}
	drivenEngine   = capsEngine{caps: engine.Capabilities{Family: engine.FamilySQL, Driven: true}}
	embeddedEngine = capsEngine{caps: engine.Capabilities{Family: engine.FamilySQL, Embedded: true}}
)

// The process policy: client threads for a driven engine (one per CPU by
// default, at most one per worker, with a P beside them), goroutines
// under GOMAXPROCS --client-threads for an engine over a network (half
// the CPUs by default, at most one per worker), Go's defaults for an
// embedded engine and for -1. Where client threads are not supported
// (GODEBUG=asyncpreemptoff=1: the test runs itself again with it) a
// driven engine is run as a networked one, with a note saying why.
func TestProcessFor(t *testing.T) {
	if drive.Unsupported() == nil {
		// And again where they are not: under GODEBUG=asyncpreemptoff=1.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestProcessFor$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestProcessFor") {
			t.Fatalf("under GODEBUG=asyncpreemptoff=1: %v\n%s", err, out)
		}
	}
	cpus, procs := runtime.NumCPU(), runtime.GOMAXPROCS(0)
	network := func(n int) runner.Process { return runner.Process{GOMAXPROCS: n} }
	// driven is threads client threads, or GOMAXPROCS n where they are
	// not supported.
	driven := func(threads, n int) runner.Process {
		if drive.Unsupported() != nil {
			return network(n)
		}
		return runner.Process{Threads: threads, GOMAXPROCS: max(threads+1, procs)}
	}
	for _, c := range []struct {
		name          string
		eng           engine.Engine
		threads, flag int
		want          runner.Process
	}{
		{"driven/default", drivenEngine, 8, 0, driven(min(cpus, 8), min(max(1, cpus/2), 8))},
		{"driven/3", drivenEngine, 8, 3, driven(3, 3)},
		{"driven/more-than-workers", drivenEngine, 2, 5, driven(2, 2)},
		{"driven/goroutines", drivenEngine, 8, -1, runner.Process{}},
		{"network/default", networkEngine, 8, 0, network(min(max(1, cpus/2), 8))},
		{"network/3", networkEngine, 8, 3, network(3)},
		{"network/more-than-workers", networkEngine, 2, 5, network(2)},
		{"network/goroutines", networkEngine, 8, -1, runner.Process{}},
		{"embedded/default", embeddedEngine, 4, 0, runner.Process{}},
		{"embedded/3", embeddedEngine, 4, 3, runner.Process{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := session.ProcessFor(c.eng, runner.Config{Threads: c.threads, ClientThreads: c.flag})
			note := got.Note
			got.Note = ""
			if got != c.want {
				t.Errorf("ProcessFor = %+v, want %+v", got, c.want)
			}
			wantNote := strings.HasPrefix(c.name, "driven/") && c.flag >= 0 && drive.Unsupported() != nil
			if (note != "") != wantNote || wantNote && !strings.Contains(note, drive.Unsupported().Error()) {
				t.Errorf("note %q, want one only where client threads were wanted but are not supported", note)
			}
		})
	}
}

// --client-io io_uring makes a driven engine's client threads ring
// threads; on an engine whose driver waits on its own goroutines it
// changes nothing, and the note says so.
func TestProcessForClientIO(t *testing.T) {
	cfg := runner.Config{Threads: 4, ClientThreads: 2, ClientIO: runner.ClientIORing}
	if p := session.ProcessFor(drivenEngine, cfg); drive.Unsupported() == nil && (!p.Ring || p.Threads != 2) {
		t.Errorf("driven engine: ProcessFor = %+v, want 2 ring threads", p)
	}
	p := session.ProcessFor(networkEngine, cfg)
	if p.Ring || p.Threads != 0 || !strings.Contains(p.Note, "--client-io io_uring had no effect") {
		t.Errorf("network engine: ProcessFor = %+v, want goroutines and a note that io_uring had no effect", p)
	}
	cfg.ClientIO = ""
	if p := session.ProcessFor(drivenEngine, cfg); p.Ring {
		t.Errorf("without --client-io: ProcessFor = %+v, want epoll threads", p)
	}
}

// A real engine's policy comes from what its dialect states, so an
// engine wrapped by another (a managed server's, which stops the server
// when it closes) keeps it: PostgreSQL's workers run on client threads
// either way, SQLite's keep Go's defaults.
func TestProcessForRealEngines(t *testing.T) {
	ctx := context.Background()
	pg, err := engine.Open(ctx, testdb.Postgres(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	type wrapped struct{ engine.Engine }
	cfg := runner.Config{Threads: 2}
	for name, eng := range map[string]engine.Engine{"postgres": pg, "wrapped postgres": wrapped{pg}} {
		p := session.ProcessFor(eng, cfg)
		switch {
		case drive.Unsupported() == nil && p.Threads != 2:
			t.Errorf("%s: ProcessFor = %+v, want 2 client threads", name, p)
		case drive.Unsupported() != nil && (p.Threads != 0 || p.Note == ""):
			t.Errorf("%s: ProcessFor = %+v, want goroutines and a note where client threads are not supported", name, p)
		}
	}
}
