//go:build k8s

package k8stest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// echoargsBin is testdata/echoargs, built by TestMain.
var echoargsBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "k8stest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	echoargsBin = filepath.Join(dir, "echoargs")
	out, err := exec.Command("go", "build", "-o", echoargsBin, "./testdata/echoargs").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building testdata/echoargs: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// echoReport is what echoargs prints.
type echoReport struct {
	Args  []string          `json:"args"`
	Env   map[string]string `json:"env"`
	Dir   string            `json:"dir"`
	Files map[string]string `json:"files"`
}

func readManifest(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// argAfter is the argument that follows flag in args.
func argAfter(args []string, flag string) (string, bool) {
	i := slices.Index(args, flag)
	if i < 0 || i+1 >= len(args) {
		return "", false
	}
	return args[i+1], true
}

// TestIndexedJobShards runs an Indexed Job of three shards through the
// real API server and Job controller: each pod gets its own --shard, the
// Secret's value, the ConfigMap's file and a writable emptyDir, and the
// Job controller sees all three succeed.
func TestIndexedJobShards(t *testing.T) {
	start := time.Now()
	outcomes := RunJob(t, readManifest(t, "indexed-job.yaml"), echoargsBin, nil)
	t.Logf("the Job ran in %v", time.Since(start).Round(time.Millisecond))
	if len(outcomes) != 3 {
		t.Fatalf("%d pods ran, want 3", len(outcomes))
	}
	const plan = "workload: oltp\nduration: 10s\n"
	for i, o := range outcomes {
		if o.Index != i {
			t.Errorf("outcome %d is of index %d", i, o.Index)
		}
		if o.ExitCode != 0 || o.Phase != corev1.PodSucceeded {
			t.Errorf("pod %s: exit %d, phase %s, err %q\nstderr: %s", o.Pod, o.ExitCode, o.Phase, o.Err, o.Stderr)
			continue
		}
		if o.Argv[0] != echoargsBin {
			t.Errorf("pod %s ran %s, want %s", o.Pod, o.Argv[0], echoargsBin)
		}
		var r echoReport
		if err := json.Unmarshal([]byte(o.Stdout), &r); err != nil {
			t.Errorf("pod %s: stdout %q: %v", o.Pod, o.Stdout, err)
			continue
		}
		if r.Args[0] != "k8s" || r.Args[1] != "job" {
			t.Errorf("pod %s: args %q, want k8s job first", o.Pod, r.Args)
		}
		if got, _ := argAfter(r.Args, "--shard"); got != fmt.Sprintf("%d/3", i) {
			t.Errorf("pod %s: --shard %q, want %d/3", o.Pod, got, i)
		}
		if got, _ := argAfter(r.Args, "--run-id"); got != "run-42" {
			t.Errorf("pod %s: --run-id %q, want run-42", o.Pod, got)
		}
		for _, want := range []string{"--literal=$(RUN_ID)", "--undefined=$(NOT_DEFINED)"} {
			if !slices.Contains(r.Args, want) {
				t.Errorf("pod %s: no argument %s in %q", o.Pod, want, r.Args)
			}
		}
		wantEnv := map[string]string{
			"RUN_ID":               "run-42",
			"DB_PASSWORD":          "s3cret-for-k8stest",
			"DSN":                  "postgres://bench:s3cret-for-k8stest@db:5432/bench",
			"POD_NAME":             o.Pod,
			"POD_NAMESPACE":        "default",
			"SHARD":                strconv.Itoa(i),
			"JOB_COMPLETION_INDEX": strconv.Itoa(i),
		}
		for k, want := range wantEnv {
			if got := r.Env[k]; got != want {
				t.Errorf("pod %s: env %s = %q, want %q", o.Pod, k, got, want)
			}
		}
		// The ConfigMap's file, at the rewritten mount path, in an argument
		// and in an env value.
		var planFiles, scratchFiles int
		for p, content := range r.Files {
			switch {
			case strings.HasSuffix(p, "/plan.yaml"):
				planFiles++
				if content != plan {
					t.Errorf("pod %s: %s holds %q, want %q", o.Pod, p, content, plan)
				}
			case strings.HasSuffix(p, fmt.Sprintf("/shard-%d", i)):
				scratchFiles++
				if content != "written by echoargs" {
					t.Errorf("pod %s: %s holds %q", o.Pod, p, content)
				}
			default:
				t.Errorf("pod %s: read unexpected file %s", o.Pod, p)
			}
			if strings.HasPrefix(p, "/etc/dbarena") || strings.HasPrefix(p, "/scratch") {
				t.Errorf("pod %s: mount path not rewritten: %s", o.Pod, p)
			}
		}
		if planFiles != 1 || scratchFiles != 1 {
			t.Errorf("pod %s: read %d plan and %d scratch files, want 1 and 1: %v", o.Pod, planFiles, scratchFiles, r.Files)
		}
		if b, err := os.ReadFile(r.Env["PLAN"]); err != nil || string(b) != plan {
			t.Errorf("pod %s: PLAN=%s: %q, %v", o.Pod, r.Env["PLAN"], b, err)
		}
	}
}

// TestIndexedJobFailedIndexes: pods that exit non-zero are reported Failed
// and the Job controller records their indexes as failed.
func TestIndexedJobFailedIndexes(t *testing.T) {
	res := RunJobWith(t, readManifest(t, "failing-job.yaml"), Options{Binaries: map[string]string{"/dbarena": echoargsBin}})
	if len(res.Pods) != 3 {
		t.Fatalf("%d pods ran, want 3", len(res.Pods))
	}
	for i, o := range res.Pods {
		want := corev1.PodSucceeded
		if i > 0 {
			want = corev1.PodFailed
		}
		if o.Index != i || o.ExitCode != i || o.Phase != want {
			t.Errorf("pod %s: index %d, exit %d, phase %s; want index %d, exit %d, %s", o.Pod, o.Index, o.ExitCode, o.Phase, i, i, want)
		}
	}
	if jobFinished(res.Job) != "Failed" {
		t.Errorf("Job %s: %s, want Failed", res.Job.Name, jobStatus(res.Job))
	}
	if fi := res.Job.Status.FailedIndexes; fi == nil || *fi != "1,2" {
		t.Errorf("Job %s: failedIndexes %v, want 1,2", res.Job.Name, fi)
	}
}

// TestStrictValidation: the API server's strict field validation rejects
// a manifest with an unknown field, and the message says which.
func TestStrictValidation(t *testing.T) {
	c := NewClientFromEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	objs, err := c.ParseManifests(ctx, []byte(`
apiVersion: v1
kind: ConfigMap
metadata:
  name: k8stest-strict
data:
  a: b
dataa:
  c: d
`), "default")
	if err != nil {
		t.Fatal(err)
	}
	err = c.Create(ctx, objs[0], nil)
	if err == nil {
		_ = c.Delete(ctx, objs[0].Path())
		t.Fatal("a ConfigMap with field dataa was accepted")
	}
	if !strings.Contains(err.Error(), `unknown field "dataa"`) {
		t.Errorf("error %q does not name the unknown field", err)
	}
}
