package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
)

// The timing model's options are refused before any work, naming the
// flag and its value.
func TestTriesOptionsRefused(t *testing.T) {
	ctx := context.Background()
	sq := sqliteURL(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"tries 0", []string{"run", "docolap", "--tries", "0", "--target", sq}, "--tries 0: must be at least 1"},
		{"query timeout alone", []string{"run", "docolap", "--query-timeout", "1m", "--target", sq}, "--query-timeout 1m0s: limits the tries of the analytic timing model: give --tries too"},
		{"threads", []string{"run", "docolap", "--tries", "3", "--threads", "4", "--target", sq}, "--threads 4: the analytic timing model (--tries) runs its queries on one connection"},
		{"not queries", []string{"run", "oltp_point_select", "--tries", "3", "--target", sq}, "--tries 3: the workload's operations are not queries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := dbarena(t, ctx, nil, tc.args...)
			if o.code != cli.ExitUsage || !strings.Contains(o.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", o.code, o.stderr, cli.ExitUsage, tc.want)
			}
		})
	}
}
