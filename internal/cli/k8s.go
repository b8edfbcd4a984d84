package cli

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/k8s"
	"github.com/dbarena/dbarena/outfile"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/target"
	"github.com/dbarena/dbarena/workload"
)

// k8sJobLong is k8s job's help.
const k8sJobLong = `job writes the Kubernetes manifests that run a workload, or a plan, as N
shards: an Indexed Job of N pods, pod i running "dbarena run WORKLOAD
--shard i/N --run-id ID" (or "dbarena plan run"), spread over the nodes; a
Secret with the target's password (unless --secret names one); a ConfigMap
with the plan file. It talks to no cluster: apply the output with kubectl.

Every flag of "dbarena run WORKLOAD" is taken and checked as run checks it;
those given are passed to every pod as --flag=value. The pods get the
target's URL without its password, and the password (from the URL, the
engine's variable PGPASSWORD or MYSQL_PWD, or --password-file) from the
Secret: through the engine's variable, or as a file for MongoDB. The output
holds the password (base64, in the Secret): -o writes it to a file of mode
0600. Its header comment says what to run next, dbarena merge included.`

// k8sFlags are k8s job's own flags.
type k8sFlags struct {
	shards                int
	image, name           string
	namespace, runID      string
	cpu, memory           string
	cpuLimit, memoryLimit string
	ttl                   time.Duration
	secret, out           string
	fs                    *pflag.FlagSet
}

func (f *k8sFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.IntVar(&f.shards, "shards", 0, "N: the pods, each running shard i of N (--shard i/N); required")
	fs.StringVar(&f.image, "image", "", "the container image holding /dbarena (the repository's Dockerfile builds it); required")
	fs.StringVar(&f.name, "name", "", "the Job's name, a DNS-1123 label (default dbarena-<run-id>)")
	fs.StringVar(&f.namespace, "namespace", "default", "the namespace of the Job, Secret and ConfigMap")
	fs.StringVar(&f.runID, "run-id", "", "the run id every shard gives and dbarena merge collects (default: the time and a random suffix, like 20260102-150405-3fa9c1)")
	fs.StringVar(&f.cpu, "cpu", "1", "each pod's CPU request")
	fs.StringVar(&f.memory, "memory", "512Mi", "each pod's memory request")
	fs.StringVar(&f.cpuLimit, "cpu-limit", "", "each pod's CPU limit (default none: throttling would show as latency)")
	fs.StringVar(&f.memoryLimit, "memory-limit", "", "each pod's memory limit (default none)")
	fs.DurationVar(&f.ttl, "ttl", time.Hour, "how long the finished Job and its pods (their logs) stay before Kubernetes deletes them")
	fs.StringVar(&f.secret, "secret", "", "an existing Secret holding the password under key "+k8s.PasswordKey+": referenced instead of writing one")
	fs.StringVarP(&f.out, "out", "o", "", "write the manifests to this file (mode 0600) instead of standard output")
}

// k8sFieldFlags name the flag behind each field of k8s.JobSpec.
var k8sFieldFlags = map[string]string{
	"Name": "--name", "Namespace": "--namespace", "Image": "--image", "Shards": "--shards",
	"RunID": "--run-id", "Resources.CPU": "--cpu", "Resources.Memory": "--memory",
	"Resources.CPULimit": "--cpu-limit", "Resources.MemoryLimit": "--memory-limit",
	"TTL": "--ttl", "Password.Secret": "--secret", "Password.Env": "--target", "Target": "--target",
	"TargetLabel": "--target", "Plan.Name": "--plan", "Plan.Content": "--plan", "File": "--out",
}

// flagError is a k8s.FieldError of spec said of the flag behind it.
func (f *k8sFlags) flagError(spec k8s.JobSpec, err error) error {
	var fe *k8s.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	value := fe.Value
	if fe.Field == "Password.Env" {
		value = target.RedactURL(spec.Target)
	}
	if value == "" {
		value = `""`
	}
	switch flag := k8sFieldFlags[fe.Field]; {
	case fe.Field == "Flags":
		return fmt.Errorf("%s: %s", fe.Value, fe.Problem)
	case fe.Field == "Name" && !f.fs.Changed("name"):
		return fmt.Errorf("--name %s (the default, dbarena-<run-id>): %s; give --name", value, fe.Problem)
	case flag != "":
		return fmt.Errorf("%s %s: %s", flag, value, fe.Problem)
	default:
		return err
	}
}

// spec is the JobSpec of the flags, with run id and name defaulted.
func (f *k8sFlags) spec(st *State) k8s.JobSpec {
	runID := f.runID
	if !f.fs.Changed("run-id") {
		runID = newRunID(st.Now())
	}
	name := f.name
	if !f.fs.Changed("name") {
		name = "dbarena-" + runID
	}
	file := f.out
	if file == "" {
		file = "job.yaml"
	}
	return k8s.JobSpec{
		Name: name, Namespace: f.namespace, Image: f.image, Shards: f.shards, RunID: runID,
		Resources: k8s.Resources{CPU: f.cpu, Memory: f.memory, CPULimit: f.cpuLimit, MemoryLimit: f.memoryLimit},
		TTL:       f.ttl, File: file,
	}
}

// problems are the flags' own problems beside what k8s.JobSpec.Validate
// finds.
func (f *k8sFlags) problems() []error {
	var errs []error
	if !f.fs.Changed("shards") {
		errs = append(errs, errors.New("--shards: required: the number of pods, each one shard of the run"))
	}
	if !f.fs.Changed("image") {
		errs = append(errs, errors.New("--image: required: the container image holding /dbarena"))
	}
	if f.out != "" {
		if err := outfile.Check("--out", f.out); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// write validates spec, and when it and every problem found before
// (errs) allow, writes its manifests to --out or standard output. The
// problems of the fields in said were found before.
func (f *k8sFlags) write(cmd *cobra.Command, st *State, spec k8s.JobSpec, errs []error, said ...string) error {
	errs = append(errs, f.problems()...)
	for _, e := range spec.Validate() {
		var fe *k8s.FieldError
		if errors.As(e, &fe) && (fe.Field == "Shards" && !f.fs.Changed("shards") ||
			fe.Field == "Image" && !f.fs.Changed("image") || fe.Field == "Target" && fe.Value == "" ||
			slices.Contains(said, fe.Field)) {
			continue // said above: required, the target's or the plan's own error
		}
		errs = append(errs, f.flagError(spec, e))
	}
	if err := usage(errs); err != nil {
		return err
	}
	y, err := k8s.Manifests(spec)
	if err != nil {
		return err
	}
	if f.out == "" {
		_, err := st.Stdout.Write(y)
		return err
	}
	if err := outfile.WriteFile(cmd.Context(), "--out", f.out, 0o600, y); err != nil {
		return err
	}
	fmt.Fprintf(st.Stderr, "wrote %s: job/%s, run id %s; then: kubectl apply -f %s\n", f.out, spec.Name, spec.RunID, f.out)
	return nil
}

// newRunID is a run id for now: sortable by time, random after it so that
// two made in one second differ, valid as a label value.
func newRunID(now time.Time) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// k8sTarget parses --target as the pods get it: the URL of a database
// server they reach, and apart from it the password (the URL's,
// --password-file's, else the engine's variable; none read with
// --secret) and the variable the engine reads it from.
func (f *k8sFlags) k8sTarget(st *State, raw, passwordFile string) (engine.Target, k8s.Password, []error) {
	var pw k8s.Password
	if raw == "" {
		return engine.Target{}, pw, []error{errors.New("--target: required: the URL of the database server the shards run against and store their results in")}
	}
	getenv := st.Getenv
	if f.secret != "" {
		getenv = nil // the Secret holds it; the shell's variable is not read
	}
	t, err := engine.ParseTarget(raw, passwordFile, getenv)
	if err != nil {
		return t, pw, []error{err}
	}
	shown := target.RedactURL(raw)
	var errs []error
	reg, ok := engine.Lookup(t.URL.Scheme)
	switch {
	case t.URL.Scheme == server.Scheme:
		errs = append(errs, fmt.Errorf("--target %s: a managed server runs on this host: give the URL of a server the pods reach", shown))
	case !ok:
		errs = append(errs, fmt.Errorf("--target %s: %w %q (known: %v)", shown, engine.ErrUnknownScheme, t.URL.Scheme, engine.Schemes()))
	case t.URL.Host == "":
		errs = append(errs, fmt.Errorf("--target %s: names no host: each pod would have a file of its own; give a database server the pods reach", shown))
	}
	if f.secret != "" && t.Password.IsSet() {
		from := "the target URL"
		if passwordFile != "" {
			from = "--password-file " + passwordFile
		}
		errs = append(errs, fmt.Errorf("--secret %s: %s gives a password too; give it one way", f.secret, from))
	}
	if t.Label != "" && !strings.HasPrefix(raw, t.Label+"=") {
		t.Label = "" // not given: the pods label it as run does
	}
	switch {
	case f.secret != "":
		pw = k8s.Password{Env: reg.PasswordEnv, Secret: f.secret}
	case t.Password.IsSet():
		pw = k8s.Password{Env: reg.PasswordEnv, Value: t.Password.Reveal()}
	}
	return t, pw, errs
}

// waitTimeout is the header's kubectl wait timeout for a run expected to
// take d (0: unknown): d and ten minutes for starting and ending.
func waitTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return (d + 10*time.Minute).Round(time.Minute)
}

func newK8sCmd(st *State) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "k8s",
		Short: "Write Kubernetes manifests that run dbarena as shards on a cluster",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return &UsageError{errors.New("k8s needs a subcommand: job")}
		},
	}
	cmd.AddCommand(newK8sJobCmd(st))
	return cmd
}

// newK8sJobCmd is k8s job: with --plan it writes a plan's Job; each
// workload is a subcommand taking run's flags.
func newK8sJobCmd(st *State) *cobra.Command {
	var kf k8sFlags
	var planFile, targetURL, passwordFile string
	var vars []string
	cmd := &cobra.Command{
		Use:   "job [WORKLOAD] --target URL --shards N --image IMAGE [flags]",
		Short: "Write the Job that runs a workload (every run flag taken) or a plan (--plan) as N shards",
		Long:  k8sJobLong,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &UsageError{fmt.Errorf("k8s job: unknown workload %q: one of %s (or --plan FILE)", args[0], workloadNames())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if planFile == "" {
				return &UsageError{fmt.Errorf("k8s job needs a workload first, one of %s, or --plan FILE", workloadNames())}
			}
			spec := kf.spec(st)
			t, pw, errs := kf.k8sTarget(st, targetURL, passwordFile)
			spec.Password = pw
			if t.URL != nil {
				spec.Target = t.URL.String()
			}
			p, content, perrs := k8sPlan(planFile, vars, spec.Shards)
			errs = append(errs, perrs...)
			spec.Plan = &k8s.PlanFile{Name: filepath.Base(planFile), Content: content}
			var said []string
			if p != nil {
				spec.WaitTimeout = waitTimeout(p.Estimate())
			} else {
				said = append(said, "Plan.Content")
			}
			for _, v := range vars {
				spec.Flags = append(spec.Flags, "--var="+v)
			}
			return kf.write(cmd, st, spec, errs, said...)
		},
	}
	fs := cmd.Flags()
	kf.register(fs)
	fs.StringVar(&planFile, "plan", "", "run this plan file (dbarena plan run) instead of a workload; it goes into a ConfigMap as it is, so it may hold no password")
	fs.StringVar(&targetURL, "target", "", "with --plan: the URL of the database the shards store their results in (dbarena merge --from), whose password the pods get")
	fs.StringVar(&passwordFile, "password-file", "", "read the password from this file (else from the URL or the engine's variable: "+strings.Join(engine.PasswordEnvs(), ", ")+")")
	fs.StringArrayVar(&vars, "var", nil, "with --plan: set a variable the plan declares under vars (NAME=VALUE), passed to the pods; repeatable")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{fmt.Errorf("k8s job: %w", err)} })
	for _, m := range workload.All() {
		c := newK8sWorkloadCmd(st, m)
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
			return &UsageError{fmt.Errorf("k8s job %s: %w", m.Name, err)}
		})
		cmd.AddCommand(c)
	}
	return cmd
}

// k8sPlan loads the plan file as the pods will run it, with its problems
// for pods that reach their targets over the network: every target a
// URL of a server, with no password (the file goes into a ConfigMap as
// it is), and no --tries beside more than one shard.
func k8sPlan(path string, vars []string, shards int) (*plan.Plan, []byte, []error) {
	given, err := planVars(vars)
	if err != nil {
		return nil, nil, []error{err}
	}
	p, err := plan.Load(path, plan.Options{Vars: given, ValidateTarget: func(raw string) error {
		t, err := engine.ParseTarget(raw, "", nil)
		if err != nil {
			return err
		}
		reg, ok := engine.Lookup(t.URL.Scheme)
		switch {
		case t.URL.Scheme == server.Scheme:
			return errors.New("a managed server runs on the host of the dbarena that starts it: give the URL of a server the pods reach")
		case !ok:
			return fmt.Errorf("%w %q (known: %v)", engine.ErrUnknownScheme, t.URL.Scheme, engine.Schemes())
		case t.URL.Host == "":
			return errors.New("names no host: each pod would have a file of its own; give a database server the pods reach")
		case len(target.URLSecrets(raw)) > 0 && reg.PasswordEnv != "":
			return fmt.Errorf("holds a password: the plan goes into a ConfigMap as it is; leave it out: the pods get it from the Secret through %s", reg.PasswordEnv)
		case len(target.URLSecrets(raw)) > 0:
			return errors.New("holds a password: the plan goes into a ConfigMap as it is, and plan run reads this engine's password from the URL only")
		}
		return nil
	}})
	if err != nil {
		return nil, nil, []error{err}
	}
	var errs []error
	if shards > 1 {
		for _, c := range p.Cells {
			if c.Workload.Run.Tries != nil {
				errs = append(errs, fmt.Errorf("--plan %s: workload %q has tries: not with --shards %d: the analytic model runs each query on one connection; give --shards 1", path, c.Workload.Label, shards))
				break
			}
		}
	}
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, append(errs, &UsageError{fmt.Errorf("--plan %s: %w", path, err)})
	}
	return p, content, errs
}

// newK8sWorkloadCmd is k8s job WORKLOAD: run's flags for the workload,
// checked as run checks them, those given passed to the pods.
func newK8sWorkloadCmd(st *State, m workload.Meta) *cobra.Command {
	w := m.New()
	var kf k8sFlags
	var tf targetFlags
	rf := newRunFlags()
	cmd := &cobra.Command{
		Use:   m.Name + " --target URL --shards N --image IMAGE [run flags]",
		Short: m.Description,
		Long:  k8sJobLong,
		Args:  cobra.NoArgs,
	}
	kf.register(cmd.Flags())
	// run's flags, on a set of their own so that what was given can be
	// told apart; a name k8s job takes itself (--out) stays its own.
	runFS := pflag.NewFlagSet(m.Name, pflag.ContinueOnError)
	bindRunFlags(runFS, w, &tf, &rf)
	runFS.Lookup("target").Usage = "the URL of the database server the pods run against, optionally labelled: [label=]postgres://user@host:port/db, mysql://…, mongodb://…/db; its password goes into the Secret; required"
	// --shard is each pod's own, --run-id the Job's (k8s job's flag).
	given := recordFlags(runFS, "target", "password-file", "shard", "run-id")
	cmd.Flags().AddFlagSet(runFS)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		spec := kf.spec(st)
		spec.Workload = m.Name
		var errs []error
		if runFS.Changed("shard") {
			errs = append(errs, fmt.Errorf("--shard %s: each pod is given its own, --shard INDEX/%d: leave it out", rf.shard.shard, kf.shards))
			rf.shard.shard = ""
		}
		if runFS.Changed("server-pid") {
			errs = append(errs, fmt.Errorf("--server-pid %d: the server runs on no pod's host: leave it out", rf.serverPID))
			rf.serverPID = 0 // not looked for on this host either
		}
		errs = append(errs, runProblems(st, w, &tf, &rf)...)
		if rf.cfg.Tries != nil && spec.Shards > 1 {
			errs = append(errs, fmt.Errorf("--tries %d: not with --shards %d: the analytic model runs each query on one connection; give --shards 1", *rf.cfg.Tries, spec.Shards))
		}
		t, pw, terrs := kf.k8sTarget(st, tf.target, tf.passwordFile)
		errs = append(errs, terrs...)
		if t.URL != nil {
			spec.Target, spec.TargetLabel = t.URL.String(), t.Label
		}
		if t.URL != nil {
			// Checked on a copy: the pods are given the flags themselves.
			c := t
			if err := tf.applyMongoParams(&c); err != nil {
				errs = append(errs, err)
			}
		}
		spec.Password = pw
		spec.Flags = given()
		var expect time.Duration
		for _, n := range rf.threads {
			cfg := rf.config(n, st)
			if cfg.Tries != nil || cfg.Duration <= 0 {
				expect = 0
				break
			}
			expect += cfg.Warmup + cfg.Duration
		}
		spec.WaitTimeout = waitTimeout(expect)
		return kf.write(cmd, st, spec, errs)
	}
	return cmd
}

// recorded is a flag's value that keeps every value it is given, as
// given, to hand them on in the same order.
type recorded struct {
	pflag.Value
	given []string
}

func (r *recorded) Set(s string) error {
	if err := r.Value.Set(s); err != nil {
		return err
	}
	r.given = append(r.given, s)
	return nil
}

// recordFlags records the values given to every flag of fs but skip,
// and returns a function listing them as --flag=value, flags sorted by
// name, each flag's values in the order given: what makes a dbarena of
// the same flags end with the same settings.
func recordFlags(fs *pflag.FlagSet, skip ...string) func() []string {
	var recs []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if slices.Contains(skip, f.Name) {
			return
		}
		f.Value = &recorded{Value: f.Value}
		recs = append(recs, f)
	})
	slices.SortFunc(recs, func(a, b *pflag.Flag) int { return strings.Compare(a.Name, b.Name) })
	return func() []string {
		var out []string
		for _, f := range recs {
			for _, v := range f.Value.(*recorded).given {
				out = append(out, "--"+f.Name+"="+v)
			}
		}
		return out
	}
}
