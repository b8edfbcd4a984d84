// Run-level isolation and retries: the run sets them, the workload gives
// their defaults.

package runner

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// RetryOverride holds the retry settings a run gives; a nil field keeps
// the workload's (Spec.RunDefaults, else workload.DefaultRetryPolicy).
type RetryOverride struct {
	// MaxRetries is how many replays a transaction gets before it counts
	// as an error.
	MaxRetries *int
	// Backoff is the first replay's back-off bound, doubled per replay up
	// to BackoffMax.
	Backoff, BackoffMax *time.Duration
}

// RunDefaults are w's defaults for the run options the runner owns.
func RunDefaults(w workload.Workload) workload.RunDefaults {
	if d := w.Define().RunDefaults; d != nil {
		return *d
	}
	return workload.RunDefaults{Retry: workload.DefaultRetryPolicy()}
}

// Effective is the isolation level and retry policy a run of w with c
// uses: c's settings, else w's defaults.
func (c Config) Effective(w workload.Workload) (isolation string, retry workload.RetryPolicy) {
	def := RunDefaults(w)
	isolation, retry = cmp.Or(c.Isolation, def.Isolation), def.Retry
	if c.Retry.MaxRetries != nil {
		retry.MaxRetries = *c.Retry.MaxRetries
	}
	if c.Retry.Backoff != nil {
		retry.Base = *c.Retry.Backoff
	}
	if c.Retry.BackoffMax != nil {
		retry.Max = *c.Retry.BackoffMax
	}
	return isolation, retry
}

// OptionValues are the run options a result file records among the
// workload's options, under their flag names, so that compare treats
// them like the workload options they once were (--vary isolation): for a
// workload with RunDefaults (its workers replay), the isolation level and
// the retry policy; for others the isolation level when one is set; in
// the analytic timing model (Tries) the cold mode, as decided for the
// target (ColdMode, set by package session before the file's header is
// written).
func OptionValues(w workload.Workload, c Config) map[string]string {
	out := map[string]string{}
	if c.Tries != nil && c.ColdMode != "" {
		out["cold"] = c.ColdMode
	}
	isolation, retry := c.Effective(w)
	if w.Define().RunDefaults == nil {
		if isolation != "" {
			out["isolation"] = isolation
		}
		return out
	}
	out["isolation"] = isolation
	out["max-retries"] = strconv.Itoa(retry.MaxRetries)
	out["retry-backoff"] = retry.Base.String()
	out["retry-backoff-max"] = retry.Max.String()
	return out
}

// checkIsolation refuses an isolation level the target's engine does not
// have or the workload cannot run at, before any work starts.
func checkIsolation(w workload.Workload, d engine.Dialect, level string) error {
	if level == "" {
		return nil
	}
	bad := func(err error) error { return &workload.OptionError{Flag: "isolation", Value: level, Err: err.Error()} }
	ic := w.Define().CheckIsolation
	if ic != nil {
		if err := ic(d, level); err != nil {
			return bad(err)
		}
	}
	iso, ok := d.(engine.Isolator)
	if !ok {
		if ic != nil {
			return nil // the workload's transactions run at the level it accepted
		}
		return bad(fmt.Errorf("%s: cannot set the isolation level", d.Name()))
	}
	if _, err := iso.IsolationSQL(level); err != nil {
		return bad(err)
	}
	return nil
}

// setIsolation sets a worker's connection to the run's isolation level:
// SQL engines by their dialect's statement; other engines' transactions
// run at the level the workload accepted (checkIsolation).
func setIsolation(ctx context.Context, c engine.Conn, level string) error {
	if level == "" {
		return nil
	}
	sc, ok := c.(engine.SQLConn)
	if !ok {
		return nil
	}
	if err := engine.SetIsolation(ctx, sc, level); err != nil {
		return &workload.OptionError{Flag: "isolation", Value: level, Err: err.Error()}
	}
	return nil
}
