package k8s

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/dbarena/dbarena/target"
)

// Paths and names inside a shard's pod.
const (
	// Binary is the dbarena binary in the image (the Dockerfile's).
	Binary = "/dbarena"
	// ResultsDir is the emptyDir a shard writes its result file to. It
	// goes with the pod: the shards also store their files in the target
	// database, where dbarena merge collects them.
	ResultsDir = "/results"
	// PlanDir is where the plan's ConfigMap is mounted, read-only.
	PlanDir = "/plan"
	// TmpDir is a writable emptyDir for temporary files (the interval log
	// of a run without --out) and DBARENA_HOME: the root file system is
	// read-only.
	TmpDir = "/tmp"
	// HomeDir is DBARENA_HOME in the pod.
	HomeDir = TmpDir + "/dbarena"
	// PasswordDir is where a Secret is mounted for an engine that reads
	// no password variable (Password.Env ""); the file is PasswordKey.
	PasswordDir = "/var/run/secrets/dbarena"
	// PasswordKey is the key of the password in the Secret, printed or
	// referenced (Password.Secret).
	PasswordKey = "password"
	// IndexEnv is the variable holding the pod's completion index, the
	// shard's number from 0 to N-1; args refer to it as $(IndexEnv).
	IndexEnv = "JOB_COMPLETION_INDEX"
	// UID is the pods' numeric user and group: distroless's nonroot.
	UID = 65532
)

// indexLabel is the pod label the Job controller sets to the completion
// index; IndexEnv is read from it through the downward API.
const indexLabel = "batch.kubernetes.io/job-completion-index"

// Labels every object carries; a JobSpec's Labels may not set them.
const (
	LabelName     = "app.kubernetes.io/name"     // "dbarena"
	LabelInstance = "app.kubernetes.io/instance" // the Job's name
	LabelRunID    = "dbarena.dev/run-id"         // the run id
)

// JobSpec is one sharded run: what the pods run and what they get.
type JobSpec struct {
	// Name is the Job's name, a DNS-1123 label; the Secret is
	// NAME-password, the ConfigMap NAME-plan.
	Name string
	// Namespace is the objects' namespace; "" leaves it to kubectl's
	// context.
	Namespace string
	// Image is the container image holding Binary.
	Image string
	// Shards is N: the pods, each one shard of the run.
	Shards int
	// RunID is the id every shard gives (--run-id), valid as a label
	// value; dbarena merge collects the shards by it.
	RunID string
	// Workload is the workload the shards run (`dbarena run WORKLOAD`);
	// empty with Plan.
	Workload string
	// Target is the database URL without any password: the shards'
	// --target (with TargetLabel) and the header's dbarena merge --from.
	Target string
	// TargetLabel labels the target in the shards' result files
	// (--target LABEL=URL); "" for none.
	TargetLabel string
	// Flags are dbarena flags every shard is given after its own, each
	// "--flag=value" (or "--flag" alone); $ in them is kept as written,
	// not expanded by Kubernetes. They may not set what the Job sets
	// itself: --target, --shard, --run-id, --out, --password-file.
	Flags []string
	// Password is how the pods get the target's password.
	Password Password
	// Plan, when not nil, is the plan file the shards run
	// (`dbarena plan run`) instead of Workload.
	Plan *PlanFile
	// Resources are each pod's CPU and memory.
	Resources Resources
	// TTL is how long the finished Job (and its pods, their logs) stays
	// before Kubernetes deletes it; whole seconds.
	TTL time.Duration
	// Labels are further labels on every object and pod.
	Labels map[string]string
	// File is the manifests' file as the header's kubectl apply names it
	// (default "job.yaml").
	File string
	// WaitTimeout is the header's kubectl wait --timeout (default 1h).
	WaitTimeout time.Duration
}

// Password says how the pods get the target's password. The zero value
// is none.
type Password struct {
	// Env is the variable the target's engine reads it from
	// (PGPASSWORD, MYSQL_PWD). "" for an engine that reads none: the
	// Secret is mounted as a file and the shards given --password-file
	// (not with a plan: plan run has no --password-file).
	Env string
	// Value is the password, written into a Secret (NAME-password).
	Value string
	// Secret names an existing Secret holding the password under
	// PasswordKey, referenced instead of writing one.
	Secret string
}

func (p Password) set() bool { return p.Value != "" || p.Secret != "" }

// secretName is the Secret the pods read the password from.
func (s JobSpec) secretName() string {
	if s.Password.Secret != "" {
		return s.Password.Secret
	}
	return s.Name + "-password"
}

// PlanFile is a plan file for the pods, put into a ConfigMap (NAME-plan)
// mounted at PlanDir.
type PlanFile struct {
	// Name is the file's name there, a ConfigMap key (letters, digits,
	// '-', '_', '.').
	Name string
	// Content is the file. It goes into the ConfigMap as it is: it must
	// hold no password.
	Content []byte
}

// Resources are a pod's requests and optional limits, as Kubernetes
// quantities ("1", "500m", "512Mi").
type Resources struct {
	CPU, Memory           string // requests; "" for none
	CPULimit, MemoryLimit string // limits; "" for none
}

// FieldError is a problem with one field of a JobSpec.
type FieldError struct {
	// Field is the JobSpec's field: "Shards", "Resources.CPU",
	// "Password.Secret".
	Field string
	// Value is the field's value as given (never a password's).
	Value string
	// Problem says what is wrong.
	Problem string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Problem)
}

// ownFlags are the flags the Job gives the shards itself.
var ownFlags = []string{"target", "shard", "run-id", "out", "password-file"}

// Validate reports every problem of s at once, each a *FieldError.
func (s JobSpec) Validate() []error {
	var errs []error
	bad := func(field, value, problem string) {
		errs = append(errs, &FieldError{Field: field, Value: value, Problem: problem})
	}
	k8sMsgs := func(field, value string, msgs []string) {
		if len(msgs) > 0 {
			bad(field, value, strings.Join(msgs, "; "))
		}
	}
	if s.Name == "" {
		bad("Name", s.Name, "empty")
	} else {
		k8sMsgs("Name", s.Name, validation.IsDNS1123Label(s.Name))
		// The Secret and ConfigMap names add a suffix.
		if len(s.Name)+len("-password") > validation.DNS1123SubdomainMaxLength {
			bad("Name", s.Name, "too long")
		}
	}
	if s.Namespace != "" {
		k8sMsgs("Namespace", s.Namespace, validation.IsDNS1123Label(s.Namespace))
	}
	if strings.TrimSpace(s.Image) == "" {
		bad("Image", s.Image, "empty: name the image holding "+Binary)
	} else if strings.ContainsAny(s.Image, " \t\r\n") {
		bad("Image", s.Image, "has white space")
	}
	if s.Shards < 1 {
		bad("Shards", fmt.Sprint(s.Shards), "must be at least 1")
	} else if s.Shards > math.MaxInt32 {
		bad("Shards", fmt.Sprint(s.Shards), "too many")
	}
	if s.RunID == "" {
		bad("RunID", s.RunID, "empty")
	} else {
		k8sMsgs("RunID", s.RunID, validation.IsValidLabelValue(s.RunID))
	}
	if s.Plan == nil && s.Workload == "" {
		bad("Workload", s.Workload, "empty: name a workload or give a plan")
	}
	if s.Plan != nil && s.Workload != "" {
		bad("Workload", s.Workload, "not with a plan: the plan names its workloads")
	}
	if strings.ContainsAny(s.Workload, " \t\r\n$") {
		bad("Workload", s.Workload, "not a workload's name")
	}
	if s.Plan != nil {
		k8sMsgs("Plan.Name", s.Plan.Name, validation.IsConfigMapKey(s.Plan.Name))
		if len(s.Plan.Content) == 0 {
			bad("Plan.Content", s.Plan.Name, "the plan is empty")
		}
	}
	errs = append(errs, s.validateTarget()...)
	if s.TargetLabel != "" && strings.ContainsAny(s.TargetLabel, "=:/ \t\r\n") {
		bad("TargetLabel", s.TargetLabel, "a label has no '=', ':', '/' or white space")
	}
	for _, f := range s.Flags {
		name, _, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		switch {
		case !strings.HasPrefix(f, "--") || name == "":
			bad("Flags", f, "want --flag=value")
		case slices.Contains(ownFlags, name):
			bad("Flags", f, "the Job sets --"+name+" itself")
		}
	}
	if s.Password.Value != "" && s.Password.Secret != "" {
		bad("Password.Secret", s.Password.Secret, "a password is given too: reference a Secret or write one, not both")
	}
	if s.Password.Secret != "" {
		k8sMsgs("Password.Secret", s.Password.Secret, validation.IsDNS1123Subdomain(s.Password.Secret))
	}
	if s.Password.Env != "" {
		k8sMsgs("Password.Env", s.Password.Env, validation.IsEnvVarName(s.Password.Env))
	} else if s.Password.set() && s.Plan != nil {
		bad("Password.Env", "", "the engine reads no password variable, and plan run has no --password-file: a plan's pods cannot be given the password")
	}
	errs = append(errs, s.Resources.validate()...)
	if s.TTL < 0 || s.TTL%time.Second != 0 || s.TTL > math.MaxInt32*time.Second {
		bad("TTL", s.TTL.String(), "want whole seconds, not negative")
	}
	if s.WaitTimeout < 0 {
		bad("WaitTimeout", s.WaitTimeout.String(), "negative")
	}
	for _, k := range sortedKeys(s.Labels) {
		switch k {
		case LabelName, LabelInstance, LabelRunID:
			bad("Labels", k, "dbarena's own label")
			continue
		}
		k8sMsgs("Labels", k, content.IsLabelKey(k))
		k8sMsgs("Labels", k+"="+s.Labels[k], validation.IsValidLabelValue(s.Labels[k]))
	}
	if strings.ContainsAny(s.File, "\r\n") {
		bad("File", s.File, "has a line break")
	}
	return errs
}

// validateTarget checks that Target is a URL that holds no secret: the
// pods' arguments and the header show it.
func (s JobSpec) validateTarget() []error {
	if s.Target == "" {
		return []error{&FieldError{Field: "Target", Problem: "empty: the database the shards run against and store their results in"}}
	}
	shown := target.RedactURL(s.Target)
	u, err := url.Parse(s.Target)
	if err != nil || u.Scheme == "" {
		return []error{&FieldError{Field: "Target", Value: shown, Problem: "not a URL"}}
	}
	if len(target.URLSecrets(s.Target)) > 0 || shown != s.Target {
		return []error{&FieldError{Field: "Target", Value: shown, Problem: "holds a secret (a password, a secret parameter): the pods' arguments would show it; leave it out"}}
	}
	return nil
}

func (r Resources) validate() []error {
	var errs []error
	parse := func(field, v string) *resource.Quantity {
		if v == "" {
			return nil
		}
		q, err := resource.ParseQuantity(v)
		if err != nil {
			errs = append(errs, &FieldError{Field: field, Value: v, Problem: "not a quantity: want one like 1, 500m, 512Mi, 2Gi"})
			return nil
		}
		if q.Sign() <= 0 {
			errs = append(errs, &FieldError{Field: field, Value: v, Problem: "must be positive"})
			return nil
		}
		return &q
	}
	cpu, mem := parse("Resources.CPU", r.CPU), parse("Resources.Memory", r.Memory)
	cpuMax, memMax := parse("Resources.CPULimit", r.CPULimit), parse("Resources.MemoryLimit", r.MemoryLimit)
	if cpu != nil && cpuMax != nil && cpu.Cmp(*cpuMax) > 0 {
		errs = append(errs, &FieldError{Field: "Resources.CPULimit", Value: r.CPULimit, Problem: "below the request " + r.CPU})
	}
	if mem != nil && memMax != nil && mem.Cmp(*memMax) > 0 {
		errs = append(errs, &FieldError{Field: "Resources.MemoryLimit", Value: r.MemoryLimit, Problem: "below the request " + r.Memory})
	}
	return errs
}

// requirements are r as Kubernetes takes them; r is valid.
func (r Resources) requirements() corev1.ResourceRequirements {
	list := func(cpu, mem string) corev1.ResourceList {
		l := corev1.ResourceList{}
		if cpu != "" {
			l[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		if mem != "" {
			l[corev1.ResourceMemory] = resource.MustParse(mem)
		}
		if len(l) == 0 {
			return nil
		}
		return l
	}
	return corev1.ResourceRequirements{Requests: list(r.CPU, r.Memory), Limits: list(r.CPULimit, r.MemoryLimit)}
}

// Manifests returns s as multi-document YAML in the order kubectl apply
// creates them: the Secret (when a password is given and no existing
// Secret named), the ConfigMap of the plan (with a plan), the Job. A
// header comment names the run and the next steps. An invalid s is an
// error joining every *FieldError.
func Manifests(s JobSpec) ([]byte, error) {
	if errs := s.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var objs []any
	if s.Password.Value != "" {
		objs = append(objs, s.secret())
	}
	if s.Plan != nil {
		objs = append(objs, s.configMap())
	}
	objs = append(objs, s.job())
	var b bytes.Buffer
	b.WriteString(s.header())
	for i, o := range objs {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("k8s: %T: %w", o, err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// header is the comment opening the manifests: the run, then the
// commands that apply them, wait for the shards and merge their results.
func (s JobSpec) header() string {
	ns := ""
	if s.Namespace != "" {
		ns = " -n " + s.Namespace
	}
	file := s.File
	if file == "" {
		file = "job.yaml"
	}
	wait := s.WaitTimeout
	if wait == 0 {
		wait = time.Hour
	}
	what := "workload " + s.Workload
	if s.Plan != nil {
		what = "plan " + s.Plan.Name
	}
	shown := target.RedactURL(s.Target)
	lines := []string{
		fmt.Sprintf("dbarena, run id %s: %s in %d shards against %s, image %s", s.RunID, what, s.Shards, shown, s.Image),
		"",
		"  kubectl apply -f " + file,
		fmt.Sprintf("  kubectl wait --for=condition=complete --timeout=%s%s job/%s", formatDuration(wait), ns, s.Name),
		fmt.Sprintf("  dbarena merge --from '%s' --run-id %s -o merged.json", shown, s.RunID),
		"",
		"A failed shard is not retried (backoffLimitPerIndex 0): the Job ends",
		"Failed, and kubectl wait above waits until its timeout. The failed ones:",
		fmt.Sprintf("  kubectl get%s job/%s -o jsonpath='{.status.failedIndexes}'", ns, s.Name),
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight("# "+l, " ") + "\n")
	}
	return b.String()
}

// formatDuration is d as kubectl takes it, without zero units ("1h",
// "1h30m", "90s").
func formatDuration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// labels are the labels of every object: s's own and dbarena's.
func (s JobSpec) labels() map[string]string {
	l := map[string]string{}
	for k, v := range s.Labels {
		l[k] = v
	}
	l[LabelName] = "dbarena"
	l[LabelInstance] = s.Name
	l[LabelRunID] = s.RunID
	return l
}

func (s JobSpec) meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: s.labels()}
}

func (s JobSpec) secret() *corev1.Secret {
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: s.meta(s.secretName()),
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{PasswordKey: []byte(s.Password.Value)},
	}
}

func (s JobSpec) configMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: s.meta(s.Name + "-plan"),
		Data:       map[string]string{s.Plan.Name: string(s.Plan.Content)},
	}
}

// escape keeps s as written in a container's args: Kubernetes expands
// $(VAR) there and reads $$ as $.
func escape(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// Args are the arguments of Binary in shard $(IndexEnv)'s pod.
func (s JobSpec) Args() []string {
	index := "$(" + IndexEnv + ")"
	shard := []string{
		fmt.Sprintf("--shard=%s/%d", index, s.Shards),
		"--run-id=" + escape(s.RunID),
	}
	var args []string
	if s.Plan != nil {
		args = append([]string{"plan", "run", escape(PlanDir + "/" + s.Plan.Name)}, shard...)
	} else {
		t := s.Target
		if s.TargetLabel != "" {
			t = s.TargetLabel + "=" + t
		}
		args = append([]string{"run", escape(s.Workload), "--target=" + escape(t)}, shard...)
		if s.Password.set() && s.Password.Env == "" {
			args = append(args, "--password-file="+PasswordDir+"/"+PasswordKey)
		}
	}
	for _, f := range s.Flags {
		args = append(args, escape(f))
	}
	if s.Plan != nil {
		return append(args, "--out="+ResultsDir)
	}
	return append(args, "--out="+ResultsDir+"/shard-"+index+".json")
}

func (s JobSpec) job() *batchv1.Job {
	n := int32(s.Shards)
	ttl := int32(s.TTL / time.Second)
	indexed := batchv1.IndexedCompletion
	// A failed shard is not run again: its new pod would start after the
	// others had passed the start barrier. maxFailedIndexes is left
	// unset, so the Job runs every shard and reports the failed ones
	// (status.failedIndexes) rather than stopping at the first.
	noRetry := int32(0)
	selector := map[string]string{LabelInstance: s.Name, LabelRunID: s.RunID}
	yes, no := true, false
	uid := int64(UID)
	env := []corev1.EnvVar{
		// Recent Kubernetes sets it for Indexed Jobs; set here, the pods
		// have it on every version with Indexed Jobs.
		{Name: IndexEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			APIVersion: "v1", FieldPath: "metadata.labels['" + indexLabel + "']"}}},
		{Name: "DBARENA_HOME", Value: HomeDir},
	}
	mounts := []corev1.VolumeMount{
		{Name: "results", MountPath: ResultsDir},
		{Name: "tmp", MountPath: TmpDir},
	}
	volumes := []corev1.Volume{
		{Name: "results", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	if s.Password.set() {
		if s.Password.Env != "" {
			env = append(env, corev1.EnvVar{Name: s.Password.Env, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: s.secretName()}, Key: PasswordKey}}})
		} else {
			mode := int32(0o400)
			mounts = append(mounts, corev1.VolumeMount{Name: "password", MountPath: PasswordDir, ReadOnly: true})
			volumes = append(volumes, corev1.Volume{Name: "password", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
				SecretName: s.secretName(), DefaultMode: &mode, Items: []corev1.KeyToPath{{Key: PasswordKey, Path: PasswordKey}}}}})
		}
	}
	if s.Plan != nil {
		mounts = append(mounts, corev1.VolumeMount{Name: "plan", MountPath: PlanDir, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: "plan", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: s.Name + "-plan"}}}})
	}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: s.meta(s.Name),
		Spec: batchv1.JobSpec{
			CompletionMode:          &indexed,
			Completions:             &n,
			Parallelism:             &n,
			BackoffLimitPerIndex:    &noRetry,
			TTLSecondsAfterFinished: &ttl,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: s.labels()},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					// dbarena talks to its target only.
					AutomountServiceAccountToken: &no,
					EnableServiceLinks:           &no,
					// One shard per node where the nodes allow: shards
					// sharing a node share its CPU, and the client
					// becomes what is measured. ScheduleAnyway, not
					// DoNotSchedule: on a cluster with fewer nodes than
					// shards DoNotSchedule would leave some shards
					// pending while the others wait for them at the
					// start barrier until it times out.
					TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
						MaxSkew:           1,
						TopologyKey:       "kubernetes.io/hostname",
						WhenUnsatisfiable: corev1.ScheduleAnyway,
						LabelSelector:     &metav1.LabelSelector{MatchLabels: selector},
					}},
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   &yes,
						RunAsUser:      &uid,
						RunAsGroup:     &uid,
						FSGroup:        &uid,
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:    "dbarena",
						Image:   s.Image,
						Command: []string{Binary},
						Args:    s.Args(),
						Env:     env,
						// No CPU limit unless asked for: CFS throttling
						// would stall the client's workers mid-transaction
						// and show up as the database's latency.
						Resources:    s.Resources.requirements(),
						VolumeMounts: mounts,
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: &no,
							ReadOnlyRootFilesystem:   &yes,
							RunAsNonRoot:             &yes,
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
					Volumes: volumes,
				},
			},
		},
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
