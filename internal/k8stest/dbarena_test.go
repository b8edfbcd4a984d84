//go:build k8s

package k8stest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
)

// dbarena k8s job's manifests, applied with server-side validation to
// the real control plane: the real Job controller creates the 3 indexed
// pods, each pod's command and environment as the API holds them run
// against the test PostgreSQL (its password only from the Secret), and
// the result they stored there merges complete.
func TestDbarenaIndexedJob(t *testing.T) {
	tg := testdb.Isolated(t, testdb.Postgres(t))
	dir := t.TempDir()
	bin := filepath.Join(dir, "dbarena")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/dbarena").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	u := *tg.URL
	plain := u.String() // without the password
	env := append(os.Environ(), "DBARENA_HOME="+filepath.Join(dir, "home"), "PGPASSWORD="+tg.Password.Reveal())
	dbarena := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("dbarena %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	dbarena("prepare", "oltp_point_select", "--target", plain, "--table-size", "5000")
	manifests := dbarena("k8s", "job", "oltp_point_select", "--target", plain, "--shards", "3", "--image", "dbarena:test",
		"--run-id", "k8s1", "--table-size", "5000", "--threads", "2", "--time", "3s", "--warmup", "0", "--cpu", "100m", "--memory", "64Mi")
	if strings.Contains(manifests, tg.Password.Reveal()) {
		t.Fatal("the manifests hold the password in clear")
	}

	res := RunJobWith(t, []byte(manifests), Options{Binaries: map[string]string{"/dbarena": bin}})
	if len(res.Pods) != 3 {
		t.Fatalf("%d pods ran, want 3", len(res.Pods))
	}
	for _, p := range res.Pods {
		if p.ExitCode != 0 {
			t.Errorf("pod %d (%s): exit %d: %s\n%s%s", p.Index, strings.Join(p.Argv, " "), p.ExitCode, p.Err, p.Stdout, p.Stderr)
		}
		for _, e := range p.Env {
			if strings.HasPrefix(e, "PGPASSWORD=") && e != "PGPASSWORD="+tg.Password.Reveal() {
				t.Errorf("pod %d: PGPASSWORD from the Secret is not the target's", p.Index)
			}
		}
	}
	if res.Job.Status.Succeeded != 3 {
		t.Errorf("the Job controller counts %d succeeded pods, want 3", res.Job.Status.Succeeded)
	}

	merged := filepath.Join(dir, "merged.json")
	dbarena("merge", "--from", plain, "--run-id", "k8s1", "-o", merged)
	m, err := result.Read(merged)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Runs[0]
	t.Logf("merged: %d shards, %d threads, %d transactions, start skew %.3f ms", len(m.Shards), r.Threads, r.Transactions, r.Barrier.SkewMS)
	if len(m.Shards) != 3 || len(m.MissingShards) != 0 || r.Threads != 6 || m.Status != result.StatusComplete || r.Transactions == 0 {
		t.Errorf("merged %d shards (missing %v), %d threads, status %s, %d transactions; want 3 complete shards of 2 threads",
			len(m.Shards), m.MissingShards, r.Threads, m.Status, r.Transactions)
	}
}
