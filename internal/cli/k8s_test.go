package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/workload"
)

// k8sObjects is k8s job's output read back into the Kubernetes API's
// types, strictly: a field the API does not know fails the test.
type k8sObjects struct {
	header string
	kinds  []string
	secret *corev1.Secret
	plan   *corev1.ConfigMap
	job    *batchv1.Job
}

func readManifests(t *testing.T, out string) k8sObjects {
	t.Helper()
	var o k8sObjects
	for line := range strings.Lines(out) {
		if !strings.HasPrefix(line, "#") {
			break
		}
		o.header += line
	}
	for _, doc := range strings.Split(out, "\n---\n") {
		var tm struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("%v in\n%s", err, doc)
		}
		o.kinds = append(o.kinds, tm.Kind)
		var into any
		switch tm.Kind {
		case "Secret":
			o.secret = &corev1.Secret{}
			into = o.secret
		case "ConfigMap":
			o.plan = &corev1.ConfigMap{}
			into = o.plan
		case "Job":
			o.job = &batchv1.Job{}
			into = o.job
		default:
			t.Fatalf("kind %q in\n%s", tm.Kind, doc)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			t.Fatalf("%s: %v", tm.Kind, err)
		}
	}
	if o.job == nil {
		t.Fatalf("no Job in\n%s", out)
	}
	return o
}

func (o k8sObjects) container() corev1.Container { return o.job.Spec.Template.Spec.Containers[0] }

func (o k8sObjects) env(name string) *corev1.EnvVar {
	for _, e := range o.container().Env {
		if e.Name == name {
			return &e
		}
	}
	return nil
}

func k8sJob(t *testing.T, env map[string]string, args ...string) (outcome, k8sObjects) {
	t.Helper()
	r := dbarena(t, context.Background(), env, append([]string{"k8s", "job"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	return r, readManifests(t, r.stdout)
}

func TestK8sJobWorkload(t *testing.T) {
	r, o := k8sJob(t, nil, "oltp_read_write", "--target", "pg16=postgres://bench:hunter2@db.bench.svc:5432/bench",
		"--shards", "4", "--image", "registry.example/dbarena:1", "--run-id", "r1",
		// Given out of order, a threshold twice: the pods get them
		// sorted, each flag's values in the order given, as given.
		"--warmup", "10s", "--threshold", "p99<50ms", "--tables", "8", "--threads", "8", "--time", "60",
		"--tolerate-errors", "--threshold", "tps>1000")
	if strings.Contains(r.stdout, "hunter2") || strings.Contains(r.stderr, "hunter2") {
		t.Errorf("the password is in the output:\n%s", r.stdout)
	}
	if !slices.Equal(o.kinds, []string{"Secret", "Job"}) {
		t.Fatalf("kinds %v", o.kinds)
	}
	if got := string(o.secret.Data["password"]); got != "hunter2" || o.secret.Name != "dbarena-r1-password" {
		t.Errorf("secret %s holds %q", o.secret.Name, got)
	}
	j := o.job
	if j.Name != "dbarena-r1" || j.Namespace != "default" {
		t.Errorf("job %s/%s", j.Namespace, j.Name)
	}
	s := j.Spec
	if *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 4 || *s.Parallelism != 4 ||
		*s.BackoffLimitPerIndex != 0 || s.MaxFailedIndexes != nil || *s.TTLSecondsAfterFinished != 3600 {
		t.Errorf("job spec %+v", s)
	}
	p := s.Template.Spec
	if p.RestartPolicy != corev1.RestartPolicyNever || s.Template.Labels["dbarena.dev/run-id"] != "r1" ||
		s.Template.Labels["app.kubernetes.io/name"] != "dbarena" {
		t.Errorf("pod: restart %s, labels %v", p.RestartPolicy, s.Template.Labels)
	}
	if tsc := p.TopologySpreadConstraints; len(tsc) != 1 || tsc[0].TopologyKey != "kubernetes.io/hostname" ||
		tsc[0].WhenUnsatisfiable != corev1.ScheduleAnyway || tsc[0].MaxSkew != 1 {
		t.Errorf("spread %+v", tsc)
	}
	if sc := p.SecurityContext; sc == nil || !*sc.RunAsNonRoot || *sc.RunAsUser == 0 {
		t.Errorf("pod security %+v", sc)
	}
	c := o.container()
	if sc := c.SecurityContext; !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation {
		t.Errorf("container security %+v", sc)
	}
	if c.Image != "registry.example/dbarena:1" || !slices.Equal(c.Command, []string{"/dbarena"}) {
		t.Errorf("image %s, command %q", c.Image, c.Command)
	}
	want := []string{"run", "oltp_read_write", "--target=pg16=postgres://bench@db.bench.svc:5432/bench",
		"--shard=$(JOB_COMPLETION_INDEX)/4", "--run-id=r1",
		"--tables=8", "--threads=8", "--threshold=p99<50ms", "--threshold=tps>1000", "--time=60", "--tolerate-errors=true", "--warmup=10s",
		"--out=/results/shard-$(JOB_COMPLETION_INDEX).json"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args\n%q, want\n%q", c.Args, want)
	}
	if e := o.env("JOB_COMPLETION_INDEX"); e == nil || e.ValueFrom.FieldRef.FieldPath != "metadata.labels['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("JOB_COMPLETION_INDEX %+v", e)
	}
	if e := o.env("PGPASSWORD"); e == nil || e.ValueFrom.SecretKeyRef.Name != "dbarena-r1-password" || e.ValueFrom.SecretKeyRef.Key != "password" {
		t.Errorf("PGPASSWORD %+v", e)
	}
	if e := o.env("DBARENA_HOME"); e == nil || e.Value == "" {
		t.Errorf("DBARENA_HOME %+v", e)
	}
	if q := c.Resources.Requests; q.Cpu().String() != "1" || q.Memory().String() != "512Mi" {
		t.Errorf("requests %v", q)
	}
	for _, w := range []string{"run id r1", "kubectl apply -f job.yaml", "kubectl wait --for=condition=complete --timeout=11m -n default job/dbarena-r1",
		"dbarena merge --from 'postgres://bench@db.bench.svc:5432/bench' --run-id r1 -o merged.json"} {
		if !strings.Contains(o.header, w) {
			t.Errorf("header lacks %q:\n%s", w, o.header)
		}
	}
}

// The password comes from the engine's variable when the URL has none;
// with --secret it is read from nowhere and printed nowhere.
func TestK8sJobPasswordWays(t *testing.T) {
	for _, tc := range []struct {
		name, target, variable string
	}{
		{"postgres PGPASSWORD", "postgres://bench@db:5432/bench", "PGPASSWORD"},
		{"mysql MYSQL_PWD", "mysql://bench@db:3306/bench", "MYSQL_PWD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{tc.variable: "from-env-pw"}
			r, o := k8sJob(t, env, "oltp_point_select", "--target", tc.target, "--shards", "2", "--image", "x:1", "--run-id", "r1")
			if strings.Contains(r.stdout, "from-env-pw") {
				t.Errorf("the password is in the output")
			}
			if string(o.secret.Data["password"]) != "from-env-pw" {
				t.Errorf("secret %v", o.secret.Data)
			}
			if e := o.env(tc.variable); e == nil || e.ValueFrom.SecretKeyRef.Name != "dbarena-r1-password" {
				t.Errorf("%s %+v", tc.variable, e)
			}

			r, o = k8sJob(t, env, "oltp_point_select", "--target", tc.target, "--shards", "2", "--image", "x:1", "--secret", "db-creds")
			if strings.Contains(r.stdout, "from-env-pw") || strings.Contains(r.stdout, "ZnJvbS1lbnYtcHc") {
				t.Errorf("the password is in the output with --secret")
			}
			if !slices.Equal(o.kinds, []string{"Job"}) {
				t.Errorf("kinds %v with --secret", o.kinds)
			}
			if e := o.env(tc.variable); e == nil || e.ValueFrom.SecretKeyRef.Name != "db-creds" {
				t.Errorf("%s %+v", tc.variable, e)
			}
		})
	}
	t.Run("mongodb password file", func(t *testing.T) {
		r, o := k8sJob(t, nil, "oltp_point_select", "--target", "mongodb://bench:hunter2@m:27017/bench?replicaSet=rs0",
			"--shards", "2", "--image", "x:1", "--write-concern", "majority")
		if strings.Contains(r.stdout, "hunter2") {
			t.Errorf("the password is in the output")
		}
		c := o.container()
		if !slices.Contains(c.Args, "--password-file=/var/run/secrets/dbarena/password") || !slices.Contains(c.Args, "--write-concern=majority") ||
			!slices.Contains(c.Args, "--target=mongodb://bench@m:27017/bench?replicaSet=rs0") {
			t.Errorf("args %q", c.Args)
		}
		var mounted bool
		for _, v := range o.job.Spec.Template.Spec.Volumes {
			mounted = mounted || v.Secret != nil && v.Secret.SecretName == o.secret.Name
		}
		if !mounted || string(o.secret.Data["password"]) != "hunter2" {
			t.Errorf("secret %s not mounted: %+v", o.secret.Name, o.job.Spec.Template.Spec.Volumes)
		}
	})
}

func TestK8sJobPlan(t *testing.T) {
	dir := t.TempDir()
	planFile := filepath.Join(dir, "study.yaml")
	plan := "name: study\nseed: 1\nduration: 60s\nthreads: [8]\ntargets:\n  - label: pg\n    url: postgres://bench@db:5432/bench\n" +
		"workloads:\n  - name: oltp_read_write\n    options:\n      tables: ${tables}\nvars:\n  tables: 4\n"
	if err := os.WriteFile(planFile, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "job.yaml")
	r := dbarena(t, context.Background(), map[string]string{"PGPASSWORD": "from-env-pw"}, "k8s", "job", "--plan", planFile,
		"--target", "postgres://bench@db:5432/bench", "--shards", "3", "--image", "x:1", "--run-id", "r2", "--var", "tables=8", "-o", out)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, mode %v", out, err, fi.Mode())
	}
	b, _ := os.ReadFile(out)
	o := readManifests(t, string(b))
	if !slices.Equal(o.kinds, []string{"Secret", "ConfigMap", "Job"}) {
		t.Fatalf("kinds %v", o.kinds)
	}
	if o.plan.Data["study.yaml"] != plan {
		t.Errorf("config map %v", o.plan.Data)
	}
	c := o.container()
	want := []string{"plan", "run", "/plan/study.yaml", "--shard=$(JOB_COMPLETION_INDEX)/3", "--run-id=r2", "--var=tables=8", "--out=/results"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args\n%q, want\n%q", c.Args, want)
	}
	var mounted bool
	for _, m := range c.VolumeMounts {
		mounted = mounted || m.MountPath == "/plan" && m.ReadOnly
	}
	var fromMap bool
	for _, v := range o.job.Spec.Template.Spec.Volumes {
		fromMap = fromMap || v.ConfigMap != nil && v.ConfigMap.Name == o.plan.Name
	}
	if !mounted || !fromMap {
		t.Errorf("plan not mounted read-only from %s: %+v", o.plan.Name, c.VolumeMounts)
	}
}

// Without --run-id, the id is the time and a random suffix, and names
// the Job.
func TestK8sJobDefaultRunID(t *testing.T) {
	_, o := k8sJob(t, nil, "oltp_point_select", "--target", "postgres://bench@db/bench", "--shards", "1", "--image", "x:1")
	id := o.job.Labels["dbarena.dev/run-id"]
	if !regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{6}$`).MatchString(id) || o.job.Name != "dbarena-"+id {
		t.Errorf("run id %q, job %q", id, o.job.Name)
	}
	if !slices.Contains(o.container().Args, "--run-id="+id) {
		t.Errorf("args %q", o.container().Args)
	}
}

// Bad flags fail as run's do (exit 2, every problem named with its flag
// and value) before anything is written.
func TestK8sJobBadFlags(t *testing.T) {
	dir := t.TempDir()
	withPw := filepath.Join(dir, "pw.yaml")
	if err := os.WriteFile(withPw, []byte("name: p\nduration: 10s\nthreads: [1]\ntargets:\n  - label: pg\n    url: postgres://bench:hunter2@db/bench\nworkloads:\n  - name: oltp_read_write\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pg := "postgres://bench:hunter2@db:5432/bench"
	ok := []string{"--target", pg, "--shards", "2", "--image", "x:1"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"run flag", append([]string{"oltp_read_write", "--threads", "0"}, ok...), []string{"--threads 0"}},
		{"workload option", append([]string{"oltp_read_write", "--tables", "-1"}, ok...), []string{"--tables -1"}},
		{"rate", append([]string{"oltp_read_write", "--rate", "0"}, ok...), []string{"--rate 0", "positive"}},
		{"unknown flag", append([]string{"oltp_read_write", "--no-such"}, ok...), []string{"--no-such"}},
		{"shards 0", []string{"oltp_read_write", "--target", pg, "--shards", "0", "--image", "x"}, []string{"--shards 0", "at least 1"}},
		{"shards missing", []string{"oltp_read_write", "--target", pg, "--image", "x"}, []string{"--shards", "required"}},
		{"image missing", []string{"oltp_read_write", "--target", pg, "--shards", "2"}, []string{"--image", "required"}},
		{"target missing", []string{"oltp_read_write", "--shards", "2", "--image", "x"}, []string{"--target", "required"}},
		{"name", append([]string{"oltp_read_write", "--name", "Bad_Name"}, ok...), []string{"--name Bad_Name", "RFC 1123"}},
		{"run id", append([]string{"oltp_read_write", "--run-id", "a b"}, ok...), []string{"--run-id a b"}},
		{"cpu", append([]string{"oltp_read_write", "--cpu", "lots"}, ok...), []string{"--cpu lots", "quantity"}},
		{"memory limit below request", append([]string{"oltp_read_write", "--memory-limit", "100Mi"}, ok...), []string{"--memory-limit 100Mi", "below the request 512Mi"}},
		{"ttl", append([]string{"oltp_read_write", "--ttl", "-1s"}, ok...), []string{"--ttl -1s"}},
		{"tries with shards", append([]string{"docolap", "--tries", "3"}, ok...), []string{"--tries 3", "--shards 2", "one connection"}},
		{"managed target", []string{"oltp_read_write", "--target", "managed:postgres", "--shards", "2", "--image", "x"}, []string{"--target managed:postgres", "managed"}},
		{"sqlite target", []string{"oltp_read_write", "--target", "sqlite:///tmp/x.db", "--shards", "2", "--image", "x"}, []string{"--target sqlite:///tmp/x.db", "no host"}},
		{"secret parameter", []string{"oltp_read_write", "--target", "postgres://b@db/bench?sslpassword=hunter2", "--shards", "2", "--image", "x"}, []string{"--target", "sslpassword=xxxxx"}},
		{"secret beside a password", append([]string{"oltp_read_write", "--secret", "creds"}, ok...), []string{"--secret creds", "one way"}},
		{"server pid", append([]string{"oltp_read_write", "--server-pid", "1"}, ok...), []string{"--server-pid 1"}},
		{"mongo flag on postgres", append([]string{"oltp_read_write", "--write-concern", "majority"}, ok...), []string{"--write-concern majority", "MongoDB"}},
		{"out is a directory", append([]string{"oltp_read_write", "-o", dir}, ok...), []string{"--out " + dir}},
		{"unknown workload", append([]string{"no_such"}, ok...), []string{`"no_such"`, "oltp_read_write"}},
		{"plan with a password", []string{"--plan", withPw, "--target", "postgres://bench@db/bench", "--shards", "2", "--image", "x"}, []string{withPw, "holds a password", "ConfigMap"}},
		{"plan with mongodb password", []string{"--plan", withPw, "--target", "mongodb://b:hunter2@m/bench", "--shards", "2", "--image", "x"}, []string{"--target mongodb://b@m/bench", "--password-file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dbarena(t, context.Background(), nil, append([]string{"k8s", "job"}, tc.args...)...)
			if r.code != cli.ExitUsage {
				t.Errorf("exit %d, want %d: %s", r.code, cli.ExitUsage, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q", r.stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "hunter2") {
				t.Errorf("stderr shows the password: %s", r.stderr)
			}
		})
	}
	// Every problem at once.
	r := dbarena(t, context.Background(), nil, "k8s", "job", "oltp_read_write", "--target", pg, "--threads", "0", "--shards", "0", "--image", "x", "--cpu", "x")
	for _, w := range []string{"--threads 0", "--shards 0", "--cpu x"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
}

// k8s job WORKLOAD takes every flag run WORKLOAD takes (but --out, which
// is its manifests' file, and --run-id, the Job's), with run's meaning
// (--target's help says what the pods need).
func TestK8sJobTakesEveryRunFlag(t *testing.T) {
	st := &cli.State{Stdout: &strings.Builder{}, Stderr: &strings.Builder{}, Getenv: func(string) string { return "" }, Now: time.Now}
	root := cli.NewRoot(st)
	find := func(args ...string) *cobra.Command {
		c, _, err := root.Find(args)
		if err != nil || c.Name() != args[len(args)-1] {
			t.Fatalf("%q: %v", args, err)
		}
		return c
	}
	for _, m := range workload.All() {
		run, job := find("run", m.Name), find("k8s", "job", m.Name)
		n := 0
		run.Flags().VisitAll(func(f *pflag.Flag) {
			// --until-ci repeats one process's rounds: shards (a job's
			// pods) would stop apart, so run refuses it with --shard.
			if f.Name == "out" || f.Name == "run-id" || strings.HasPrefix(f.Name, "until-ci") {
				return
			}
			n++
			g := job.Flags().Lookup(f.Name)
			if g == nil || g.Usage != f.Usage && f.Name != "target" || g.Value.Type() != f.Value.Type() || g.DefValue != f.DefValue {
				t.Errorf("k8s job %s --%s: %+v, run's %+v", m.Name, f.Name, g, f)
			}
		})
		if n < 20 {
			t.Errorf("run %s: %d flags", m.Name, n)
		}
	}
}
