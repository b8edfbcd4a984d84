package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/server"
)

// These tests start real managed servers (see package server's tests):
// they fail, never skip, without the binaries.

// alive tells whether process pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// serverPIDs are the main processes of a home's managed servers and of
// their own backends.
func serverPIDs(t *testing.T, home string) []int {
	t.Helper()
	list, err := server.List(home)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, s := range list {
		pids = append(pids, s.PID())
		if s.OwnsBackend() && s.Backend() != nil {
			pids = append(pids, s.Backend().PID())
		}
	}
	return pids
}

func TestServerCommands(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"DBARENA_HOME": home}
	ctx := context.Background()
	var all strings.Builder
	run := func(want int, args ...string) outcome {
		t.Helper()
		o := dbarena(t, ctx, env, args...)
		all.WriteString(o.stdout + o.stderr)
		if o.code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, o.code, want, o.stdout, o.stderr)
		}
		return o
	}
	t.Cleanup(func() { dbarena(t, ctx, env, "server", "stop", "--all") })

	o := run(cli.ExitOK, "server", "start", "postgres", "--name", "pg1", "--set", "shared_buffers=32MB", "--set", "max_wal_size=1GB")
	for _, w := range []string{"started postgres pg1: PostgreSQL ", "postgres://bench@127.0.0.1:", filepath.Join(home, "servers", "pg1", "password"),
		"shared_buffers = 32MB, max_wal_size = 1GB", "--target managed:pg1"} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("server start output lacks %q:\n%s", w, o.stdout)
		}
	}
	pwb, err := os.ReadFile(filepath.Join(home, "servers", "pg1", "password"))
	if err != nil {
		t.Fatal(err)
	}
	password := strings.TrimSpace(string(pwb))

	o = run(cli.ExitOK, "server", "list")
	if !strings.Contains(o.stdout, "pg1") || !strings.Contains(o.stdout, "running") || !strings.Contains(o.stdout, "postgres://bench@127.0.0.1:") ||
		!strings.Contains(o.stdout, "shared_buffers=32MB") {
		t.Errorf("server list:\n%s", o.stdout)
	}
	o = run(cli.ExitOK, "server", "url", "pg1")
	url := strings.TrimSpace(o.stdout)
	if !strings.HasPrefix(url, "postgres://bench@127.0.0.1:") || !strings.Contains(o.stderr, "--password-file") {
		t.Errorf("server url: %q, %q", o.stdout, o.stderr)
	}

	// The named server as a target, by name and by URL and password file.
	opts := []string{"--tables", "1", "--table-size", "200"}
	run(cli.ExitOK, append([]string{"prepare", "oltp_point_select", "--target", "managed:pg1"}, opts...)...)
	out := filepath.Join(t.TempDir(), "r.json")
	run(cli.ExitOK, append([]string{"run", "oltp_point_select", "--time", "1s", "--out", out, "--target", "mine=managed:pg1"}, opts...)...)
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Target.Label != "mine" || f.Target.Settings["shared_buffers"] != "32MB" || f.Runs[0].Transactions == 0 {
		t.Errorf("result: label %q, shared_buffers %q, %d transactions", f.Target.Label, f.Target.Settings["shared_buffers"], f.Runs[0].Transactions)
	}
	// Restarted from outside dbarena (another postmaster): it runs, and
	// managed:pg1 reaches it.
	before := serverPIDs(t, home)[0]
	pgRestart(t, home, "pg1")
	o = run(cli.ExitOK, "server", "list")
	if after := serverPIDs(t, home)[0]; !strings.Contains(o.stdout, "running") || after == before || !alive(after) {
		t.Errorf("server list after pg_ctl restart (PID %d before, %d after):\n%s", before, after, o.stdout)
	}
	run(cli.ExitOK, append([]string{"check", "oltp_point_select", "--target", "managed:pg1"}, opts...)...)
	run(cli.ExitOK, append([]string{"cleanup", "oltp_point_select", "--target", url, "--password-file", filepath.Join(home, "servers", "pg1", "password")}, opts...)...)

	// Bad input: each a usage error naming the problem; nothing started.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"server", "start", "oracle"}, `unknown server kind "oracle"`},
		{[]string{"server", "start", "postgres", "--name", "pg1"}, "managed server exists: pg1"},
		{[]string{"server", "start", "postgres", "--set", "shared_bufers=1GB"}, "shared_bufers=1GB"},
		{[]string{"server", "start", "postgres", "--set", "port=5"}, "setting port=5: dbarena sets it (use --port)"},
		{[]string{"server", "start", "postgres", "--set", "shared_buffers"}, "--set shared_buffers: want name=value"},
		{[]string{"server", "start", "pgbouncer", "--backend", "nosuch"}, "no such managed server: nosuch"},
		{[]string{"server", "stop", "nosuch"}, "no such managed server: nosuch"},
		{[]string{"server", "stop"}, "give --all"},
		{[]string{"server", "frob"}, `unknown server subcommand "frob"`},
		{[]string{"run", "oltp_point_select", "--target", "managed:nosuch"}, "no such managed server: nosuch"},
		{[]string{"run", "oltp_point_select", "--target", "managed:pg1", "--password-file", "/etc/hostname"}, "a managed target has a password of its own"},
		{[]string{"run", "oltp_point_select", "--target", "managed:postgres?shared_bufers=1GB"}, "shared_bufers=1GB"},
	} {
		o := run(cli.ExitUsage, tc.args...)
		if !strings.Contains(o.stderr, tc.want) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, o.stderr, tc.want)
		}
	}
	if list, _ := server.List(home); len(list) != 1 {
		t.Errorf("%d servers after the bad input, want pg1 only", len(list))
	}

	// A PgBouncer in front of pg1: pg1 stops only with it.
	o = run(cli.ExitOK, "server", "start", "pgbouncer", "--name", "pb1", "--backend", "pg1")
	if !strings.Contains(o.stdout, "default_query_exec_mode=exec") {
		t.Errorf("pgbouncer's URL lacks default_query_exec_mode=exec:\n%s", o.stdout)
	}
	o = run(cli.ExitOK, "server", "list")
	if !strings.Contains(o.stdout, "pgbouncer (in front of pg1)") {
		t.Errorf("server list:\n%s", o.stdout)
	}
	o = run(cli.ExitUsage, "server", "stop", "pg1")
	if !strings.Contains(o.stderr, "pgbouncer pb1 is in front of pg1") {
		t.Errorf("stop pg1: %q", o.stderr)
	}
	pids := serverPIDs(t, home)
	if len(pids) != 2 {
		t.Fatalf("PIDs %v, want pg1's and pb1's", pids)
	}
	o = run(cli.ExitOK, "server", "stop", "pg1", "pb1")
	if !strings.Contains(o.stdout, "stopped pgbouncer pb1\nstopped postgres pg1") {
		t.Errorf("stop: %q", o.stdout)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d runs after server stop", pid)
		}
	}
	o = run(cli.ExitOK, "server", "list")
	if !strings.Contains(o.stdout, "no managed servers") {
		t.Errorf("server list after stop:\n%s", o.stdout)
	}
	if strings.Contains(all.String(), password) {
		t.Errorf("the password appears in the output")
	}
}

// A managed:KIND target starts a server for one command, prepares it on
// first use and stops it afterwards; through PgBouncer (transaction
// pooling) sysbench's prepared statements run without errors.
func TestManagedTarget(t *testing.T) {
	for _, tc := range []struct{ name, target, setting, want string }{
		{"pgbouncer", "managed:pgbouncer?shared_buffers=16MB&pgbouncer.default_pool_size=8", "shared_buffers", "16MB"},
		{"mariadb", "managed:mariadb?innodb_buffer_pool_size=32M", "innodb_buffer_pool_size", "33554432"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			env := map[string]string{"DBARENA_HOME": home}
			out := filepath.Join(t.TempDir(), "r.json")
			o := dbarena(t, context.Background(), env, "run", "oltp_read_write", "--target", tc.target, "--threads", "4", "--time", "2s",
				"--tables", "2", "--table-size", "1000", "--out", out)
			if o.code != cli.ExitOK {
				t.Fatalf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
			}
			if !strings.Contains(o.stdout, "preparing it now") || !strings.Contains(o.stderr, "started managed "+tc.name) {
				t.Errorf("output:\n%s%s", o.stdout, o.stderr)
			}
			if !strings.Contains(o.stdout, "errors:                              0 ") {
				t.Errorf("errors in the run:\n%s", o.stdout)
			}
			f, err := result.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			r := f.Runs[0]
			if f.Status != result.StatusComplete || r.Transactions == 0 || r.Errors != 0 {
				t.Errorf("result: %s, %d transactions, %d errors", f.Status, r.Transactions, r.Errors)
			}
			if f.Target.Label != tc.name || f.Target.Settings[tc.setting] != tc.want {
				t.Errorf("result target: label %q, %s = %q, want %q", f.Target.Label, tc.setting, f.Target.Settings[tc.setting], tc.want)
			}
			if tc.name == "pgbouncer" && !strings.Contains(f.Target.URL, "default_query_exec_mode=exec") {
				t.Errorf("URL %s", f.Target.URL)
			}
			// The knobs asked for are recorded as asked; behind PgBouncer
			// its own settings are the target's too.
			if got := f.Target.Knobs[tc.setting]; got == "" || !strings.Contains(tc.target, tc.setting+"="+got) {
				t.Errorf("knobs %v, want %s as asked in %s", f.Target.Knobs, tc.setting, tc.target)
			}
			if tc.name == "pgbouncer" {
				if f.Target.Knobs["pgbouncer.default_pool_size"] != "8" || f.Target.Settings["pgbouncer.default_pool_size"] != "8" ||
					f.Target.Settings["pgbouncer.pool_mode"] != "transaction" {
					t.Errorf("PgBouncer's settings: knobs %v, pool size %q, pool mode %q", f.Target.Knobs,
						f.Target.Settings["pgbouncer.default_pool_size"], f.Target.Settings["pgbouncer.pool_mode"])
				}
			}
			if ents, _ := os.ReadDir(filepath.Join(home, "servers")); len(ents) > 0 {
				t.Errorf("left behind after the run: %v", ents)
			}
		})
	}
}

// Ctrl-C during a run on a managed:KIND target stops the server too.
func TestManagedTargetInterrupted(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"DBARENA_HOME": home}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan outcome)
	go func() {
		done <- dbarena(t, ctx, env, "run", "oltp_point_select", "--target", "managed:postgres?shared_buffers=16MB", "--time", "60s", "--table-size", "500")
	}()
	// Wait until the run has started (the server's record says running).
	var pid int
	for pid == 0 {
		select {
		case o := <-done:
			t.Fatalf("ended early: exit %d\n%s%s", o.code, o.stdout, o.stderr)
		default:
		}
		if list, _ := server.List(home); len(list) == 1 && list[0].Alive() && list[0].Version() != "" {
			pid = list[0].PID()
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // preparing 500 rows takes less
	cancel()
	o := <-done
	if o.code != cli.ExitInterrupted {
		t.Errorf("exit %d, want %d\n%s%s", o.code, cli.ExitInterrupted, o.stdout, o.stderr)
	}
	if alive(pid) {
		t.Errorf("postmaster %d runs after the interrupted run", pid)
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "servers")); len(ents) > 0 {
		t.Errorf("left behind: %v", ents)
	}
}

// pgRestart restarts the managed PostgreSQL name with pg_ctl, as the
// user it runs as: a new postmaster on the same data directory and port.
func pgRestart(t *testing.T, home, name string) {
	t.Helper()
	s, err := server.Lookup(home, name)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(s.PID()) + "/exe")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.DataDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(filepath.Dir(exe), "pg_ctl"), "restart", "-D", s.DataDir(), "-m", "fast", "-w", "-l", filepath.Join(s.RunDir(), "restart.log"))
	cmd.Dir = s.RunDir()
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != os.Geteuid() {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: st.Uid, Gid: st.Gid, Groups: []uint32{}}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl restart: %v\n%s", err, out)
	}
}

// PostgreSQL by version: server start --version 18 and a labelled
// managed:postgres?version=18 target start PostgreSQL 18 (the build
// scripts/testservers fetches), named as asked and after the label;
// server list and the result file say which version runs.
func TestManagedVersion(t *testing.T) {
	testdb.Postgres18(t)
	home := t.TempDir()
	// The cache of the calling user, where scripts/testservers puts
	// PostgreSQL 18 unless it runs as root.
	env := map[string]string{"DBARENA_HOME": home, "HOME": os.Getenv("HOME"), "XDG_CACHE_HOME": os.Getenv("XDG_CACHE_HOME")}
	ctx := context.Background()
	t.Cleanup(func() { dbarena(t, ctx, env, "server", "stop", "--all") })
	o := dbarena(t, ctx, env, "server", "start", "postgres", "--name", "v18", "--version", "18")
	if o.code != cli.ExitOK || !strings.Contains(o.stdout, "started postgres v18: PostgreSQL 18.") {
		t.Fatalf("server start --version 18: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = dbarena(t, ctx, env, "server", "list")
	if !regexp.MustCompile(`(?m)^NAME +KIND +VERSION +STATE .*\nv18 +postgres +PostgreSQL 18\.\d+ +running `).MatchString(o.stdout) {
		t.Errorf("server list:\n%s", o.stdout)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	o = dbarena(t, ctx, env, "run", "oltp_point_select", "--target", "pg18=managed:postgres?version=18", "--time", "1s",
		"--tables", "1", "--table-size", "200", "--out", out)
	if o.code != cli.ExitOK || !strings.Contains(o.stderr, "started managed postgres pg18 on 127.0.0.1:") {
		t.Fatalf("run on managed:postgres?version=18: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Target.Label != "pg18" || !strings.HasPrefix(f.Target.ServerVersion, "PostgreSQL 18.") || f.Runs[0].Transactions == 0 {
		t.Errorf("result: label %q, server version %q, %d transactions", f.Target.Label, f.Target.ServerVersion, f.Runs[0].Transactions)
	}
}
