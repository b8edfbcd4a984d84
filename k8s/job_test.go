package k8s

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func validSpec() JobSpec {
	return JobSpec{
		Name:      "dbarena-r1",
		Namespace: "default",
		Image:     "dbarena:test",
		Shards:    3,
		RunID:     "r1",
		Workload:  "oltp_read_write",
		Target:    "postgres://bench@db:5432/bench",
		Password:  Password{Env: "PGPASSWORD", Value: "s3cret-pw"},
		Resources: Resources{CPU: "1", Memory: "512Mi"},
		TTL:       time.Hour,
	}
}

// decoded is Manifests' output read back into the API's types.
type decoded struct {
	secret *corev1.Secret
	plan   *corev1.ConfigMap
	job    *batchv1.Job
	kinds  []string
}

func decode(t *testing.T, y []byte) decoded {
	t.Helper()
	var d decoded
	for _, doc := range strings.Split(string(y), "\n---\n") {
		var tm struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("%v in\n%s", err, doc)
		}
		d.kinds = append(d.kinds, tm.Kind)
		var into any
		switch tm.Kind {
		case "Secret":
			d.secret = &corev1.Secret{}
			into = d.secret
		case "ConfigMap":
			d.plan = &corev1.ConfigMap{}
			into = d.plan
		case "Job":
			d.job = &batchv1.Job{}
			into = d.job
		default:
			t.Fatalf("kind %q in\n%s", tm.Kind, doc)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			t.Fatalf("%s: %v", tm.Kind, err)
		}
	}
	if d.job == nil {
		t.Fatalf("no Job in\n%s", y)
	}
	return d
}

func manifests(t *testing.T, s JobSpec) decoded {
	t.Helper()
	y, err := Manifests(s)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, y)
}

func TestManifestsWorkload(t *testing.T) {
	s := validSpec()
	s.Flags = []string{"--threads=8", "--rate=100"}
	s.Labels = map[string]string{"team": "db"}
	y, err := Manifests(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(y), "s3cret-pw") {
		t.Errorf("the password is in the output:\n%s", y)
	}
	d := decode(t, y)
	if !slices.Equal(d.kinds, []string{"Secret", "Job"}) {
		t.Fatalf("kinds %v, want Secret, Job", d.kinds)
	}
	if got := string(d.secret.Data[PasswordKey]); got != "s3cret-pw" {
		t.Errorf("secret holds %q", got)
	}
	j := d.job.Spec
	if *j.CompletionMode != batchv1.IndexedCompletion || *j.Completions != 3 || *j.Parallelism != 3 {
		t.Errorf("mode %v, completions %d, parallelism %d", *j.CompletionMode, *j.Completions, *j.Parallelism)
	}
	if *j.BackoffLimitPerIndex != 0 || j.MaxFailedIndexes != nil || *j.TTLSecondsAfterFinished != 3600 {
		t.Errorf("backoffLimitPerIndex %d, maxFailedIndexes %v, ttl %d", *j.BackoffLimitPerIndex, j.MaxFailedIndexes, *j.TTLSecondsAfterFinished)
	}
	p := j.Template.Spec
	if p.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %s", p.RestartPolicy)
	}
	if l := j.Template.Labels; l[LabelRunID] != "r1" || l[LabelName] != "dbarena" || l["team"] != "db" {
		t.Errorf("pod labels %v", l)
	}
	if len(p.TopologySpreadConstraints) != 1 || p.TopologySpreadConstraints[0].TopologyKey != "kubernetes.io/hostname" ||
		p.TopologySpreadConstraints[0].WhenUnsatisfiable != corev1.ScheduleAnyway || p.TopologySpreadConstraints[0].MaxSkew != 1 {
		t.Errorf("spread %+v", p.TopologySpreadConstraints)
	}
	if sc := p.SecurityContext; !*sc.RunAsNonRoot || *sc.RunAsUser != UID {
		t.Errorf("pod security context %+v", sc)
	}
	c := p.Containers[0]
	if sc := c.SecurityContext; !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation {
		t.Errorf("container security context %+v", sc)
	}
	if !slices.Equal(c.Command, []string{"/dbarena"}) {
		t.Errorf("command %q", c.Command)
	}
	want := []string{"run", "oltp_read_write", "--target=postgres://bench@db:5432/bench", "--shard=$(JOB_COMPLETION_INDEX)/3", "--run-id=r1",
		"--threads=8", "--rate=100", "--out=/results/shard-$(JOB_COMPLETION_INDEX).json"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args\n%q, want\n%q", c.Args, want)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if f := env[IndexEnv].ValueFrom; f == nil || f.FieldRef.FieldPath != "metadata.labels['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("%s from %+v", IndexEnv, f)
	}
	if r := env["PGPASSWORD"].ValueFrom; r == nil || r.SecretKeyRef.Name != "dbarena-r1-password" || r.SecretKeyRef.Key != PasswordKey {
		t.Errorf("PGPASSWORD from %+v", r)
	}
	if env["DBARENA_HOME"].Value != HomeDir {
		t.Errorf("DBARENA_HOME %q", env["DBARENA_HOME"].Value)
	}
	if c.Resources.Requests.Cpu().String() != "1" || c.Resources.Requests.Memory().String() != "512Mi" || c.Resources.Limits != nil {
		t.Errorf("resources %+v", c.Resources)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	if mounts[ResultsDir] == "" || mounts[TmpDir] == "" {
		t.Errorf("mounts %v", mounts)
	}
}

func TestManifestsPlan(t *testing.T) {
	s := validSpec()
	s.Workload = ""
	s.Plan = &PlanFile{Name: "study.yaml", Content: []byte("name: study\n")}
	s.Flags = []string{"--var=clients=[1, 2]"}
	d := manifests(t, s)
	if !slices.Equal(d.kinds, []string{"Secret", "ConfigMap", "Job"}) {
		t.Fatalf("kinds %v", d.kinds)
	}
	if d.plan.Name != "dbarena-r1-plan" || d.plan.Data["study.yaml"] != "name: study\n" {
		t.Errorf("config map %s: %v", d.plan.Name, d.plan.Data)
	}
	p := d.job.Spec.Template.Spec
	c := p.Containers[0]
	want := []string{"plan", "run", "/plan/study.yaml", "--shard=$(JOB_COMPLETION_INDEX)/3", "--run-id=r1", "--var=clients=[1, 2]", "--out=/results"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args\n%q, want\n%q", c.Args, want)
	}
	var mounted bool
	for _, m := range c.VolumeMounts {
		if m.MountPath == PlanDir && m.ReadOnly && m.Name == "plan" {
			mounted = true
		}
	}
	for _, v := range p.Volumes {
		if v.Name == "plan" && (v.ConfigMap == nil || v.ConfigMap.Name != "dbarena-r1-plan") {
			t.Errorf("plan volume %+v", v)
		}
	}
	if !mounted {
		t.Errorf("plan not mounted read-only at %s: %+v", PlanDir, c.VolumeMounts)
	}
}

// An existing Secret is referenced, not written; an engine without a
// password variable reads it from the Secret mounted as a file.
func TestManifestsPasswordWays(t *testing.T) {
	s := validSpec()
	s.Password = Password{Env: "PGPASSWORD", Secret: "pg-creds"}
	d := manifests(t, s)
	if !slices.Equal(d.kinds, []string{"Job"}) {
		t.Errorf("kinds %v with an existing secret", d.kinds)
	}
	c := d.job.Spec.Template.Spec.Containers[0]
	if r := c.Env[len(c.Env)-1]; r.Name != "PGPASSWORD" || r.ValueFrom.SecretKeyRef.Name != "pg-creds" {
		t.Errorf("env %+v", c.Env)
	}

	s = validSpec()
	s.Target = "mongodb://bench@m:27017/bench?replicaSet=rs0"
	s.Password = Password{Value: "s3cret-pw"}
	d = manifests(t, s)
	c = d.job.Spec.Template.Spec.Containers[0]
	if !slices.Contains(c.Args, "--password-file=/var/run/secrets/dbarena/password") {
		t.Errorf("args %q", c.Args)
	}
	var vol *corev1.Volume
	for i, v := range d.job.Spec.Template.Spec.Volumes {
		if v.Name == "password" {
			vol = &d.job.Spec.Template.Spec.Volumes[i]
		}
	}
	if vol == nil || vol.Secret == nil || vol.Secret.SecretName != "dbarena-r1-password" {
		t.Errorf("password volume %+v", vol)
	}

	s = validSpec()
	s.Password = Password{}
	d = manifests(t, s)
	if !slices.Equal(d.kinds, []string{"Job"}) || len(d.job.Spec.Template.Spec.Containers[0].Env) != 2 {
		t.Errorf("without a password: kinds %v, env %+v", d.kinds, d.job.Spec.Template.Spec.Containers[0].Env)
	}
}

// Kubernetes expands $(VAR) in args and reads $$ as $: a flag's value
// reaches dbarena as written.
func TestArgsEscapeDollar(t *testing.T) {
	s := validSpec()
	s.Flags = []string{"--threshold=p99<$(HOME)ms", "--x=a$$b"}
	args := s.Args()
	if !slices.Contains(args, "--threshold=p99<$$(HOME)ms") || !slices.Contains(args, "--x=a$$$$b") {
		t.Errorf("args %q", args)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*JobSpec)
		field  string
	}{
		{"shards=0", func(s *JobSpec) { s.Shards = 0 }, "Shards"},
		{"image empty", func(s *JobSpec) { s.Image = "" }, "Image"},
		{"name upper", func(s *JobSpec) { s.Name = "Dbarena_R1" }, "Name"},
		{"name long", func(s *JobSpec) { s.Name = strings.Repeat("a", 64) }, "Name"},
		{"run id", func(s *JobSpec) { s.RunID = "r 1" }, "RunID"},
		{"cpu", func(s *JobSpec) { s.Resources.CPU = "lots" }, "Resources.CPU"},
		{"memory", func(s *JobSpec) { s.Resources.Memory = "-1Gi" }, "Resources.Memory"},
		{"memory limit below request", func(s *JobSpec) { s.Resources.MemoryLimit = "256Mi" }, "Resources.MemoryLimit"},
		{"ttl", func(s *JobSpec) { s.TTL = -time.Second }, "TTL"},
		{"target password", func(s *JobSpec) { s.Target = "postgres://bench:pw@db/bench" }, "Target"},
		{"target secret param", func(s *JobSpec) { s.Target = "postgres://bench@db/bench?sslpassword=k" }, "Target"},
		{"own flag", func(s *JobSpec) { s.Flags = []string{"--out=x.json"} }, "Flags"},
		{"positional", func(s *JobSpec) { s.Flags = []string{"oops"} }, "Flags"},
		{"secret and value", func(s *JobSpec) { s.Password.Secret = "x" }, "Password.Secret"},
		{"plan without variable", func(s *JobSpec) {
			s.Workload, s.Plan, s.Password.Env = "", &PlanFile{Name: "p.yaml", Content: []byte("x")}, ""
		}, "Password.Env"},
		{"plan key", func(s *JobSpec) { s.Workload, s.Plan = "", &PlanFile{Name: "a/b.yaml", Content: []byte("x")} }, "Plan.Name"},
		{"own label", func(s *JobSpec) { s.Labels = map[string]string{LabelRunID: "x"} }, "Labels"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := validSpec()
			c.change(&s)
			errs := s.Validate()
			if len(errs) != 1 {
				t.Fatalf("errors %v, want one about %s", errs, c.field)
			}
			var fe *FieldError
			if !errors.As(errs[0], &fe) || fe.Field != c.field {
				t.Fatalf("error %v, want one about %s", errs[0], c.field)
			}
			if strings.Contains(errs[0].Error(), "s3cret-pw") || strings.Contains(errs[0].Error(), ":pw@") {
				t.Errorf("the error shows the password: %v", errs[0])
			}
			if _, err := Manifests(s); err == nil {
				t.Error("Manifests took it")
			}
		})
	}
	if errs := validSpec().Validate(); len(errs) != 0 {
		t.Errorf("a valid spec: %v", errs)
	}
}
