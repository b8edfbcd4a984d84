package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/workload"
)

// Open a session on an embedded SQLite file, prepare the workload on
// first use and measure a sweep of two thread counts into one result
// file.
func Example() {
	dir, _ := os.MkdirTemp("", "dbarena-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	target, _ := engine.ParseTarget("embedded=sqlite://"+filepath.Join(dir, "x.db"), "", nil)
	eng, err := engine.Open(ctx, target, engine.Options{})
	if err != nil {
		panic(err)
	}
	s, err := session.Open(ctx, session.Options{Engine: eng, Target: target, PrepareOnFirstUse: true, NoMonitor: true,
		Tool: result.Tool{Name: "dbarena", Version: "example"}})
	if err != nil {
		panic(err)
	}
	defer s.Close() // closes the engine too

	m, _ := workload.Lookup("oltp_point_select")
	w := m.New()
	_ = w.Define().Options.Parse([]string{"--tables=1", "--table-size=100"})
	if err := s.EnsurePrepared(ctx, w); err != nil {
		panic(err)
	}
	base := runner.DefaultConfig()
	base.Duration = 200 * time.Millisecond
	base.ReportInterval = 100 * time.Millisecond
	var cfgs []runner.Config
	for _, n := range []int{1, 2} {
		cfg := base
		cfg.Threads = n
		cfgs = append(cfgs, cfg)
	}
	file, err := s.Measure(ctx, w, cfgs, session.Hooks{})
	if err != nil {
		panic(err)
	}
	fmt.Println(file.Status, file.Target.Label, file.Target.Engine, len(file.Runs), file.Runs[1].Threads)
	// Output:
	// complete embedded sqlite 2 2
}
