package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
)

// A libpq key=value connection string given as a target is refused as no
// URL, and the password in it is never printed, quoted or not, whatever
// the command.
func TestKeyValueTargetRedacted(t *testing.T) {
	ctx := context.Background()
	for _, target := range []string{
		"host=127.0.0.1 password=SECRET dbname=x",
		"host=127.0.0.1 password='a b SECRET' dbname=x",
		`host=127.0.0.1 password='it\'s SECRET' dbname=x`,
		"host=127.0.0.1 password = SECRET dbname=x",
		"pg=host=127.0.0.1 sslpassword=SECRET user=u",
		"password=SECRET",
	} {
		for _, cmd := range []string{"run", "prepare", "check", "cleanup"} {
			o := dbarena(t, ctx, nil, cmd, "oltp_point_select", "--target", target)
			if strings.Contains(o.stdout+o.stderr, "SECRET") {
				t.Errorf("%s --target %q printed the password:\n%s%s", cmd, target, o.stdout, o.stderr)
			}
			if o.code != cli.ExitUsage || !strings.Contains(o.stderr, "key=value") || !strings.Contains(o.stderr, "xxxxx") {
				t.Errorf("%s --target %q: exit %d %q; want %d, a key=value string refused, the password as xxxxx", cmd, target, o.code, o.stderr, cli.ExitUsage)
			}
		}
	}
	// Other strings that are no URL a driver takes: the password is not
	// printed either.
	for _, target := range []string{"u:SECRET@tcp(127.0.0.1:1)/db", "pg=postgres://u:SEC RET@127.0.0.1:1/db", "postgres//u:SECRET@h/db"} {
		for _, args := range [][]string{{"--target", target}, {"--target", target, "--write-concern", "1"}} {
			o := dbarena(t, ctx, nil, append([]string{"run", "oltp_point_select", "--connect-timeout", "2"}, args...)...)
			if o.code == cli.ExitOK || strings.Contains(o.stdout+o.stderr, "SECRET") || strings.Contains(o.stdout+o.stderr, "SEC RET") {
				t.Errorf("run %q: exit %d, printed the password:\n%s%s", args, o.code, o.stdout, o.stderr)
			}
		}
	}
}
