package session

import (
	"errors"
	"fmt"
	"os"

	"github.com/dbarena/dbarena/outfile"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
)

// journal is Measure's interval log and the result file it guards.
type journal struct {
	s   *Session
	out string
	j   *result.Journal
	// stream: out is a character device or a FIFO, written once at the
	// end; its log is a temporary file, since nothing a later recover
	// could complete is kept there.
	stream bool
}

// openJournal starts the interval log of the result file out, whose
// header is file as described before the first run.
func (s *Session) openJournal(out string, file *result.File) (*journal, error) {
	path := result.JournalPath(out)
	_, stream, err := outfile.Resolve(out)
	if err == nil && stream {
		// Named as a log beside a result file, so that recover reads it.
		tmp, err := os.CreateTemp("", "dbarena-*.json"+result.JournalSuffix)
		if err != nil {
			return nil, fmt.Errorf("--out %s: %w", out, err)
		}
		tmp.Close()
		path = tmp.Name()
	}
	j, err := result.CreateJournal(path, file)
	if err != nil {
		if stream {
			os.Remove(path)
		}
		return nil, fmt.Errorf("--out %s: %w", out, err)
	}
	return &journal{s: s, out: out, j: j, stream: stream}, nil
}

// observe returns the observer of run i: next's, after the interval is
// logged (the first interval logs the run's start too).
func (jl *journal) observe(i int, cfg runner.Config, next runner.Observer) runner.Observer {
	return &journalObserver{jl: jl, run: i, warmup: cfg.Warmup.Seconds(), open: cfg.Rate.Describe(), next: next}
}

type journalObserver struct {
	jl      *journal
	run     int
	warmup  float64
	open    *result.Open // the run's arrival rate, nil in the closed model
	started bool
	next    runner.Observer
}

func (o *journalObserver) OnTick(t runner.Tick) {
	if !o.started {
		o.started = true
		ops := make([]string, len(t.Ops))
		for k, op := range t.Ops {
			ops[k] = op.Name
		}
		_ = o.jl.j.Start(o.run, result.RunStart{Threads: t.Threads, StartedAt: t.Started, WarmupS: o.warmup, Ops: ops, Open: o.open})
	}
	if t.Record != nil {
		// A write error is kept by the journal and reported at its close:
		// the run goes on.
		_ = o.jl.j.Interval(o.run, t.Record)
	}
	if o.next != nil {
		o.next.OnTick(t)
	}
}

// end logs run i as it ended. When more runs follow, the result file is
// written with the runs so far, marked killed until the sweep's end
// replaces it.
func (jl *journal) end(i int, run *result.Run, file *result.File, more bool) {
	_ = jl.j.End(i, run)
	if !more || jl.stream {
		return
	}
	f := *file
	f.FinishedAt = jl.s.opt.Now().UTC()
	f.Status = result.StatusKilled
	f.Error = fmt.Sprintf("the sweep was still running (%d of its runs had ended); `dbarena recover %s` adds what its interval log holds", len(file.Runs), jl.out)
	if err := result.Write(jl.out, &f); err != nil {
		fmt.Fprintf(jl.s.opt.Log, "cannot write the runs so far: %v\n", err)
	}
}

// close writes the final result file and removes the log; when the file
// cannot be written the log stays, and the error says so.
func (jl *journal) close(file *result.File) error {
	logErr := jl.j.Close()
	if err := result.Write(jl.out, file); err != nil {
		return fmt.Errorf("%w (the interval log %s is kept: `dbarena recover -o <file> %s` rebuilds the result from it)", err, jl.j.Path(), jl.j.Path())
	}
	if logErr != nil {
		fmt.Fprintf(jl.s.opt.Log, "%v (the result file is complete)\n", logErr)
	}
	return jl.j.Remove()
}

// discard removes the log of a Measure that measured nothing.
func (jl *journal) discard() { _ = jl.j.Remove() }

// Recover rebuilds the result file whose interval log is
// result.JournalPath(out): the runs that ended as they ended, the run
// that was going on from its intervals, with its server summary derived
// as a run's end derives it. The file's status is killed. Skipped is what
// of the log could not be used (result.ReadJournal).
func Recover(out string) (*result.File, result.Skipped, error) {
	f, skipped, err := result.ReadJournal(result.JournalPath(out))
	if err != nil {
		if errors.Is(err, result.ErrNoJournal) {
			if _, serr := os.Stat(out); serr == nil {
				return nil, skipped, fmt.Errorf("%w: %s has no interval log beside it (%s): its run ended and wrote it", err, out, result.JournalPath(out))
			}
		}
		return nil, skipped, err
	}
	for k := range f.Runs {
		r := &f.Runs[k]
		if r.Status != result.StatusKilled || r.Server != nil {
			continue
		}
		runner.ServerSummary(r)
	}
	return f, skipped, nil
}
