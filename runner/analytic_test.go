package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/runner"
)

func TestTriesOptionsRejected(t *testing.T) {
	zero, one := 0, 1
	for _, tc := range []struct {
		name string
		set  func(c *runner.Config)
		want string
	}{
		{"tries 0", func(c *runner.Config) { c.Tries = &zero }, "--tries 0: must be at least 1"},
		{"query timeout without tries", func(c *runner.Config) { c.QueryTimeout = time.Second }, "--query-timeout 1s: limits the tries of the analytic timing model: give --tries too"},
		{"negative query timeout", func(c *runner.Config) { c.Tries, c.QueryTimeout = &one, -time.Second }, "--query-timeout -1s: must not be negative"},
		{"threads", func(c *runner.Config) { c.Tries, c.Threads = &one, 4 }, "--threads 4: the analytic timing model (--tries) runs its queries on one connection"},
		{"warmup", func(c *runner.Config) { c.Tries, c.Warmup = &one, time.Second }, "--warmup 1s: the analytic timing model (--tries) has no warm-up"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := runner.DefaultConfig()
			tc.set(&c)
			errs := c.Validate()
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Errorf("Validate = %v, want %q", errs, tc.want)
			}
		})
	}
	// Through the flags as `dbarena run` binds them.
	c := runner.DefaultConfig()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	runner.BindFlags(fs, &c)
	if err := fs.Parse([]string{"--tries", "0"}); err != nil {
		t.Fatal(err)
	}
	if errs := c.Validate(); len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "--tries 0") {
		t.Errorf("--tries 0: %v", errs)
	}
	// A workload whose ops are not queries with answers.
	c = runner.DefaultConfig()
	c.Tries = &one
	_, err := runner.Run(context.Background(), open(t), &probe{}, c, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "--tries 1: the workload's operations are not queries") {
		t.Errorf("tries on a workload without answers: %v", err)
	}
}
