package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/result"
)

// mongoEnv is an environment where the managed mongo kind finds the
// mongod scripts/testservers install caches (HOME, XDG_CACHE_HOME).
func mongoEnv(t *testing.T) map[string]string {
	return map[string]string{"DBARENA_HOME": t.TempDir(), "HOME": os.Getenv("HOME"), "XDG_CACHE_HOME": os.Getenv("XDG_CACHE_HOME"), "PATH": os.Getenv("PATH")}
}

// dbarena server start mongo, list, url and stop; --mongod names the
// program.
func TestServerCommandsMongo(t *testing.T) {
	env := mongoEnv(t)
	ctx := context.Background()
	t.Cleanup(func() { dbarena(t, ctx, env, "server", "stop", "--all") })
	o := dbarena(t, ctx, env, "server", "start", "mongo", "--name", "m1", "--set", "wiredTigerCacheSizeGB=0.25", "--set", "transactionLifetimeLimitSeconds=90")
	if o.code != cli.ExitOK {
		t.Fatalf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	pw, err := os.ReadFile(filepath.Join(env["DBARENA_HOME"], "servers", "m1", "password"))
	if err != nil || len(strings.TrimSpace(string(pw))) < 16 {
		t.Fatalf("password file: %v", err)
	}
	for _, w := range []string{"started mongo m1: MongoDB ", "mongodb://bench@127.0.0.1:", "replicaSet=rs0", "authSource=admin",
		"wiredTigerCacheSizeGB = 0.25, transactionLifetimeLimitSeconds = 90", "--target managed:m1"} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("server start output lacks %q:\n%s", w, o.stdout)
		}
	}
	list := dbarena(t, ctx, env, "server", "list")
	url := dbarena(t, ctx, env, "server", "url", "m1")
	if !regexp.MustCompile(`(?m)^m1 +mongo +MongoDB 6\.0\.\d+ +running `).MatchString(list.stdout) || !strings.Contains(url.stdout, "mongodb://bench@127.0.0.1:") {
		t.Errorf("list:\n%s\nurl:\n%s", list.stdout, url.stdout)
	}
	for _, out := range []string{o.stdout, o.stderr, list.stdout, list.stderr, url.stdout, url.stderr} {
		if strings.Contains(out, strings.TrimSpace(string(pw))) {
			t.Errorf("the password is in the output:\n%s", out)
		}
	}
	if o := dbarena(t, ctx, env, "server", "stop", "m1"); o.code != cli.ExitOK || !strings.Contains(o.stdout, "stopped mongo m1") {
		t.Errorf("stop: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}

	bad := dbarena(t, ctx, env, "server", "start", "mongo", "--mongod", "/nonexistent/mongod")
	if bad.code == cli.ExitOK || !strings.Contains(bad.stderr, "--mongod /nonexistent/mongod is not an executable file") {
		t.Errorf("--mongod /nonexistent/mongod: exit %d\n%s", bad.code, bad.stderr)
	}
	bad = dbarena(t, ctx, env, "server", "start", "postgres", "--mongod", "/x")
	if bad.code != cli.ExitUsage || !strings.Contains(bad.stderr, "--mongod /x: postgres servers take no such program") {
		t.Errorf("postgres --mongod: exit %d\n%s", bad.code, bad.stderr)
	}
}

// run airline on managed:mongo: a new one-node replica set, prepared and
// run with transactions, stopped after.
func TestManagedTargetMongo(t *testing.T) {
	env := mongoEnv(t)
	out := filepath.Join(t.TempDir(), "r.json")
	o := dbarena(t, context.Background(), env, "run", "airline", "--target", "managed:mongo?wiredTigerCacheSizeGB=0.25",
		"--aircraft", "2", "--schedules", "5", "--threads", "2", "--time", "2s", "--transactions", "on", "--out", out)
	if o.code != cli.ExitOK {
		t.Fatalf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, "started managed mongo") {
		t.Errorf("output:\n%s%s", o.stdout, o.stderr)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Runs[0]
	if f.Status != result.StatusComplete || r.Transactions == 0 || r.Errors != 0 {
		t.Errorf("result: %s, %d transactions, %d errors", f.Status, r.Transactions, r.Errors)
	}
	if f.Target.Label != "mongo" || f.Target.Knobs["wiredTigerCacheSizeGB"] != "0.25" || !strings.Contains(f.Target.URL, "replicaSet=rs0") {
		t.Errorf("result target: label %q, knobs %v, URL %s", f.Target.Label, f.Target.Knobs, f.Target.URL)
	}
	if ents, _ := os.ReadDir(filepath.Join(env["DBARENA_HOME"], "servers")); len(ents) > 0 {
		t.Errorf("left behind after the run: %v", ents)
	}
}
