//go:build k8s

package k8stest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels and annotations the Job controller puts on the pods of a Job.
const (
	LabelJobName         = "batch.kubernetes.io/job-name"
	LabelControllerUID   = "batch.kubernetes.io/controller-uid"
	AnnotationCompletion = "batch.kubernetes.io/job-completion-index"
)

// Options says how RunJobWith plays the kubelet.
type Options struct {
	// Binaries maps an executable inside the image, as the first element
	// of a container's command names it ("/dbarena"), to the local
	// executable run in its place; the rest of the command and the args
	// are passed as they are (after expansion). A command whose first
	// element is not in Binaries fails the test, unless Binaries is empty
	// and Entrypoint is set.
	Binaries map[string]string
	// Entrypoint is the local executable for a container without command
	// (the image's own entrypoint, run with the container's args) and,
	// when Binaries is empty, for every command's first element.
	Entrypoint string
	// ExtraEnv (NAME=value) is added to every process's environment after
	// the container's own, so it wins over it.
	ExtraEnv []string
	// Namespace is the namespace of the manifest's objects that name none
	// (default "default").
	Namespace string
	// Timeout bounds the whole run, from applying the manifests to the
	// Job's final condition (default 5 minutes). Processes still running
	// then are killed.
	Timeout time.Duration
	// Keep leaves the objects in the cluster when the test ends (they are
	// deleted by default, and always before they are created).
	Keep bool
}

// PodOutcome is what happened to one pod the Job controller created.
type PodOutcome struct {
	Index    int             // the pod's completion index
	Pod      string          // the pod's name
	Argv     []string        // the command line as run: local executable, expanded args with local paths
	Env      []string        // the container's environment as resolved (NAME=value), without ExtraEnv
	ExitCode int             // the process's exit code; -1 when it did not start or was killed
	Err      string          // why the process did not start or did not exit normally, if so
	Phase    corev1.PodPhase // the phase reported to the API server: Succeeded or Failed
	Stdout   string
	Stderr   string
	Duration time.Duration
}

// JobResult is RunJobWith's result: the Job as it ended and one outcome
// per pod that ran, by index (a retried index appears once per pod).
type JobResult struct {
	Job  *batchv1.Job
	Pods []PodOutcome
}

// RunJob applies manifests (a multi-document YAML stream with exactly one
// Job, which must be Indexed, and the objects it refers to, such as
// Secrets and ConfigMaps, in the order given) to the API server of
// DBARENA_K8S_*, plays the kubelet for the pods the Job controller
// creates and returns their outcomes once the Job controller has marked
// the Job complete or failed.
//
// binary is the local executable that replaces the image's: it takes the
// place of the first element of each container's command (the image's
// entrypoint path, such as /dbarena), or runs with the container's args
// alone when the container has no command. extraEnv (NAME=value) is added
// to every process's environment. RunJobWith takes a map of executables
// instead, and more options.
func RunJob(t testing.TB, manifests []byte, binary string, extraEnv []string) []PodOutcome {
	t.Helper()
	return RunJobWith(t, manifests, Options{Entrypoint: binary, ExtraEnv: extraEnv}).Pods
}

// RunJobWith is RunJob with all its options. What it does, in order:
//
//  1. It deletes objects of the manifests' names left from an earlier run,
//     then creates every object by a POST with ?fieldValidation=Strict;
//     an object the API server rejects fails the test with its message.
//  2. It waits until the Job controller has created the first pods of the
//     Job (parallelism of them, at most completions; the pods carry the
//     label batch.kubernetes.io/controller-uid of the Job).
//  3. For each pod, as the kubelet would, it resolves the container's
//     environment (value with $(VAR) of earlier variables; valueFrom
//     fieldRef on metadata.name, metadata.namespace, metadata.uid,
//     metadata.labels['…'], metadata.annotations['…'], spec.nodeName,
//     spec.serviceAccountName, status.podIP and status.hostIP (127.0.0.1);
//     secretKeyRef and configMapKeyRef read from the API server; envFrom)
//     and expands $(VAR) in command and args with it (see Expand).
//  4. Volumes become directories of the test: a ConfigMap's or Secret's
//     keys are written as files, emptyDir and projected volumes are empty
//     directories, downward-API volumes hold their fields. Since the
//     process cannot see them at the container's mount paths, every mount
//     path in the expanded command, args, env values and working
//     directory is rewritten to the local directory (see rewritePaths) —
//     the one liberty taken with what the container would see.
//  5. It starts the pods' processes together (they are shards of one run
//     and may wait for each other), reports each pod Running, and when its
//     process ends reports it Succeeded (exit 0) or Failed through the
//     pods/status subresource, with the container's terminated state.
//  6. Pods the Job controller creates later (retries under backoffLimit
//     or backoffLimitPerIndex, indexes beyond parallelism) run the same
//     way, until the Job has condition Complete or Failed. RunJobWith then
//     checks that the Job's status agrees with the outcomes: succeeded
//     counts the indexes that succeeded, and failedIndexes (with
//     backoffLimitPerIndex) lists those that failed.
//
// The processes run with PATH of the test, HOME and TMPDIR in a directory
// of their own, the container's environment and then ExtraEnv; their
// working directory is the container's workingDir (rewritten) or an empty
// directory of their own. A pod must have one container and no init
// containers. Nothing is scheduled: the pods keep an empty nodeName.
func RunJobWith(t testing.TB, manifests []byte, opts Options) *JobResult {
	t.Helper()
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Minute
	}
	c := NewClientFromEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	defer cancel()

	objs, err := c.ParseManifests(ctx, manifests, opts.Namespace)
	if err != nil {
		t.Fatalf("k8stest: manifests: %v", err)
	}
	var jobObj *Object
	for i, o := range objs {
		if o.Kind == "Job" && o.APIVersion == "batch/v1" {
			if jobObj != nil {
				t.Fatalf("k8stest: manifests hold more than one Job (%s, %s)", jobObj, o)
			}
			jobObj = &objs[i]
		}
	}
	if jobObj == nil {
		t.Fatalf("k8stest: manifests hold no Job (batch/v1)")
	}

	// Leftovers of an earlier run with the same names go first.
	deleteAll(ctx, t, c, objs)
	if !opts.Keep {
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			deleteAll(ctx, t, c, objs)
		})
	}
	job := new(batchv1.Job)
	for i, o := range objs {
		var out any
		if &objs[i] == jobObj {
			out = job
		}
		if err := c.Create(ctx, o, out); err != nil {
			t.Fatalf("k8stest: applying %s: %v", o, err)
		}
		t.Logf("k8stest: created %s", o)
	}
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("k8stest: Job %s is not Indexed (completionMode: Indexed)", job.Name)
	}
	completions, parallelism := int32(1), int32(1)
	if job.Spec.Completions != nil {
		completions = *job.Spec.Completions
	}
	if job.Spec.Parallelism != nil {
		parallelism = *job.Spec.Parallelism
	}
	first := int(min(completions, parallelism))

	jobPath := jobObj.Path()
	podsPath := "/api/v1/namespaces/" + url.PathEscape(job.Namespace) + "/pods?labelSelector=" +
		url.QueryEscape(LabelControllerUID+"="+string(job.UID))
	root := t.TempDir()
	ran := map[string]bool{}
	var outcomes []PodOutcome
	for round := 0; ; round++ {
		// Wait for pods to run, or for the Job's end: a final condition and
		// no active pods (the Job controller may count them down in an
		// update after the one that sets the condition).
		var pending []*corev1.Pod
		for {
			// A fresh object each time: decoding leaves fields that the
			// answer omits (a zero status.active) as they were.
			job = new(batchv1.Job)
			if err := c.Get(ctx, jobPath, job); err != nil {
				t.Fatalf("k8stest: %v", err)
			}
			if jobFinished(job) != "" && job.Status.Active == 0 {
				break
			}
			var list corev1.PodList
			if err := c.Get(ctx, podsPath, &list); err != nil {
				t.Fatalf("k8stest: listing the pods of Job %s: %v", job.Name, err)
			}
			pending = pending[:0]
			for i := range list.Items {
				p := &list.Items[i]
				if !ran[p.Name] && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodPending {
					pending = append(pending, p)
				}
			}
			if jobFinished(job) == "" && (len(pending) >= first || round > 0 && len(pending) > 0) {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("k8stest: Job %s: after %v, %d pods created (%d pending, %d wanted at first), status %s",
					job.Name, opts.Timeout, len(list.Items), len(pending), first, jobStatus(job))
			case <-time.After(200 * time.Millisecond):
			}
		}
		if jobFinished(job) != "" && job.Status.Active == 0 {
			break
		}
		for _, p := range pending {
			ran[p.Name] = true
		}
		outcomes = append(outcomes, runPods(ctx, t, c, pending, opts, filepath.Join(root, strconv.Itoa(round)))...)
	}

	slices.SortStableFunc(outcomes, func(a, b PodOutcome) int { return a.Index - b.Index })
	for _, o := range outcomes {
		t.Logf("k8stest: pod %s (index %d): %s, exit %d in %v", o.Pod, o.Index, o.Phase, o.ExitCode, o.Duration.Round(time.Millisecond))
	}
	t.Logf("k8stest: Job %s %s: %s", job.Name, jobFinished(job), jobStatus(job))
	checkJobStatus(t, job, outcomes)
	return &JobResult{Job: job, Pods: outcomes}
}

// jobFinished is the type of the Job's true Complete or Failed condition, or "".
func jobFinished(job *batchv1.Job) batchv1.JobConditionType {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

func jobStatus(job *batchv1.Job) string {
	s := job.Status
	out := fmt.Sprintf("active %d, succeeded %d, failed %d, completedIndexes %q", s.Active, s.Succeeded, s.Failed, s.CompletedIndexes)
	if s.FailedIndexes != nil {
		out += fmt.Sprintf(", failedIndexes %q", *s.FailedIndexes)
	}
	for _, c := range s.Conditions {
		if c.Status == corev1.ConditionTrue {
			out += fmt.Sprintf(", %s (%s: %s)", c.Type, c.Reason, c.Message)
		}
	}
	return out
}

// checkJobStatus checks that the Job controller counted the outcomes: the
// indexes of succeeded pods are the completed indexes and, with
// backoffLimitPerIndex, the indexes whose last pod failed are the failed
// indexes.
func checkJobStatus(t testing.TB, job *batchv1.Job, outcomes []PodOutcome) {
	t.Helper()
	last := map[int]corev1.PodPhase{}
	for _, o := range outcomes {
		last[o.Index] = o.Phase
	}
	var succeeded, failed []int
	for i, ph := range last {
		if ph == corev1.PodSucceeded {
			succeeded = append(succeeded, i)
		} else {
			failed = append(failed, i)
		}
	}
	slices.Sort(succeeded)
	slices.Sort(failed)
	if got := int(job.Status.Succeeded); got != len(succeeded) {
		t.Errorf("k8stest: Job %s: status.succeeded = %d, but %d indexes succeeded (%v)", job.Name, got, len(succeeded), succeeded)
	}
	if got, err := parseIndexes(job.Status.CompletedIndexes); err != nil || !slices.Equal(got, succeeded) {
		t.Errorf("k8stest: Job %s: status.completedIndexes = %q, want %v", job.Name, job.Status.CompletedIndexes, succeeded)
	}
	if job.Spec.BackoffLimitPerIndex != nil {
		s := ""
		if job.Status.FailedIndexes != nil {
			s = *job.Status.FailedIndexes
		}
		if got, err := parseIndexes(s); err != nil || !slices.Equal(got, failed) {
			t.Errorf("k8stest: Job %s: status.failedIndexes = %q, want %v", job.Name, s, failed)
		}
	}
	if jobFinished(job) == batchv1.JobComplete && job.Spec.Completions != nil && int(*job.Spec.Completions) != len(succeeded) {
		t.Errorf("k8stest: Job %s is Complete with %d of %d indexes succeeded", job.Name, len(succeeded), *job.Spec.Completions)
	}
}

// parseIndexes reads a list of indexes as Job status writes them
// ("0-2,5", "1,2"), in ascending order.
func parseIndexes(s string) ([]int, error) {
	var out []int
	if s == "" {
		return out, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("index list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("index list %q: %w", s, err)
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// deleteAll deletes the objects in reverse order, and the pods of a Job
// with them: no garbage collector runs, and the Job controller's
// finalizer on its pods is removed here.
func deleteAll(ctx context.Context, t testing.TB, c *Client, objs []Object) {
	t.Helper()
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i]
		if err := c.Delete(ctx, o.Path()); err != nil {
			t.Errorf("k8stest: deleting %s: %v", o, err)
			continue
		}
		if o.Kind != "Job" || o.APIVersion != "batch/v1" {
			continue
		}
		var list corev1.PodList
		path := "/api/v1/namespaces/" + url.PathEscape(o.Namespace) + "/pods"
		if err := c.Get(ctx, path+"?labelSelector="+url.QueryEscape(LabelJobName+"="+o.Name), &list); err != nil {
			t.Errorf("k8stest: listing the pods of %s: %v", o, err)
			continue
		}
		for _, p := range list.Items {
			pp := path + "/" + url.PathEscape(p.Name)
			if len(p.Finalizers) > 0 {
				err := c.Do(ctx, http.MethodPatch, pp, "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`), nil)
				if err != nil && !IsStatus(err, http.StatusNotFound) {
					t.Errorf("k8stest: removing the finalizers of pod %s: %v", p.Name, err)
				}
			}
			if err := c.Delete(ctx, pp); err != nil {
				t.Errorf("k8stest: deleting pod %s: %v", p.Name, err)
			}
		}
	}
}

// runPods runs the pods' processes together and reports their phases.
func runPods(ctx context.Context, t testing.TB, c *Client, pods []*corev1.Pod, opts Options, root string) []PodOutcome {
	t.Helper()
	slices.SortFunc(pods, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	locals := make([]*localPod, len(pods))
	for i, p := range pods {
		lp, err := prepare(ctx, c, p, opts, filepath.Join(root, p.Name))
		if err != nil {
			t.Fatalf("k8stest: pod %s: %v", p.Name, err)
		}
		locals[i] = lp
	}
	outcomes := make([]PodOutcome, len(locals))
	errs := make([]error, len(locals))
	var wg sync.WaitGroup
	for i, lp := range locals {
		wg.Go(func() { outcomes[i], errs[i] = runPod(ctx, c, lp) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("k8stest: %v", err)
	}
	return outcomes
}

// prepare resolves what the kubelet would for pod p, under the local
// directory root.
func prepare(ctx context.Context, c *Client, p *corev1.Pod, opts Options, root string) (*localPod, error) {
	if len(p.Spec.Containers) != 1 || len(p.Spec.InitContainers) > 0 {
		return nil, fmt.Errorf("%d containers and %d init containers: only pods of one container are supported",
			len(p.Spec.Containers), len(p.Spec.InitContainers))
	}
	index, err := strconv.Atoi(p.Annotations[AnnotationCompletion])
	if err != nil {
		return nil, fmt.Errorf("annotation %s: %q is no index", AnnotationCompletion, p.Annotations[AnnotationCompletion])
	}
	ctr := &p.Spec.Containers[0]
	r := &podResolver{ctx: ctx, c: c, pod: p, secrets: map[string]*corev1.Secret{}, cms: map[string]*corev1.ConfigMap{}}
	env, vars, err := r.resolveEnv(ctr)
	if err != nil {
		return nil, err
	}
	dirs, err := r.volumes(root)
	if err != nil {
		return nil, err
	}
	ms, err := mounts(ctr, dirs)
	if err != nil {
		return nil, err
	}
	lookup := mapLookup(vars)
	var argv []string
	for _, s := range ctr.Command {
		argv = append(argv, rewritePaths(Expand(s, lookup), ms))
	}
	if len(argv) > 0 {
		local, ok := opts.Binaries[argv[0]]
		switch {
		case ok:
		case len(opts.Binaries) == 0 && opts.Entrypoint != "":
			local = opts.Entrypoint
		default:
			return nil, fmt.Errorf("no local executable for %s (Options.Binaries)", argv[0])
		}
		argv[0] = local
	} else {
		if opts.Entrypoint == "" {
			return nil, fmt.Errorf("the container has no command and Options.Entrypoint is not set")
		}
		argv = []string{opts.Entrypoint}
	}
	for _, s := range ctr.Args {
		argv = append(argv, rewritePaths(Expand(s, lookup), ms))
	}
	for i, e := range env {
		env[i] = rewritePaths(e, ms)
	}
	home, tmp := filepath.Join(root, "home"), filepath.Join(root, "tmp")
	dir := filepath.Join(root, "workdir")
	if ctr.WorkingDir != "" {
		if d := rewritePaths(ctr.WorkingDir, ms); d != ctr.WorkingDir {
			dir = d
		}
	}
	for _, d := range []string{home, tmp, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	procEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp}
	procEnv = append(procEnv, env...)
	procEnv = append(procEnv, opts.ExtraEnv...)
	return &localPod{pod: p, index: index, argv: argv, env: env, dir: dir, procEnv: procEnv}, nil
}

// runPod runs one pod's process and reports its phases: Running when it
// starts, Succeeded or Failed when it ends. The error is a report the API
// server refused.
func runPod(ctx context.Context, c *Client, lp *localPod) (PodOutcome, error) {
	out := PodOutcome{Index: lp.index, Pod: lp.pod.Name, Argv: lp.argv, Env: lp.env, ExitCode: -1}
	cmd := exec.CommandContext(ctx, lp.argv[0], lp.argv[1:]...)
	cmd.Env = lp.procEnv
	cmd.Dir = lp.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	ctr := lp.pod.Spec.Containers[0]
	start := time.Now()
	startErr := cmd.Start()
	if startErr == nil {
		if err := reportStatus(ctx, c, lp.pod, corev1.PodRunning, ctr, corev1.ContainerState{
			Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(start)},
		}, start); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return out, err
		}
	}
	runErr := startErr
	if startErr == nil {
		runErr = cmd.Wait()
	}
	end := time.Now()
	out.Duration = end.Sub(start)
	out.Stdout, out.Stderr = stdout.String(), stderr.String()
	if cmd.ProcessState != nil {
		out.ExitCode = cmd.ProcessState.ExitCode()
	}
	var exitErr *exec.ExitError
	if runErr != nil && (!errors.As(runErr, &exitErr) || out.ExitCode < 0) {
		out.Err = runErr.Error()
	}
	term := &corev1.ContainerStateTerminated{
		ExitCode:   int32(out.ExitCode),
		StartedAt:  metav1.NewTime(start),
		FinishedAt: metav1.NewTime(end),
	}
	out.Phase, term.Reason = corev1.PodSucceeded, "Completed"
	if out.ExitCode != 0 {
		out.Phase, term.Reason = corev1.PodFailed, "Error"
		if out.ExitCode < 0 {
			term.ExitCode, term.Message = 128, out.Err
		}
	}
	// The report must reach the API server even when ctx's time is up.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := reportStatus(rctx, c, lp.pod, out.Phase, ctr, corev1.ContainerState{Terminated: term}, start); err != nil {
		return out, err
	}
	return out, nil
}

// reportStatus sets the pod's phase and its container's state through the
// pods/status subresource with a JSON merge patch.
func reportStatus(ctx context.Context, c *Client, p *corev1.Pod, phase corev1.PodPhase, ctr corev1.Container, state corev1.ContainerState, start time.Time) error {
	running := state.Running != nil
	startTime := metav1.NewTime(start)
	status := corev1.PodStatus{
		Phase:     phase,
		StartTime: &startTime,
		ContainerStatuses: []corev1.ContainerStatus{{
			Name:         ctr.Name,
			State:        state,
			Ready:        running,
			Started:      &running,
			RestartCount: 0,
			Image:        ctr.Image,
			ImageID:      "k8stest://" + ctr.Image,
			ContainerID:  "k8stest://" + string(p.UID),
		}},
	}
	cond := corev1.ConditionFalse
	if running {
		cond = corev1.ConditionTrue
	}
	now := metav1.Now()
	for _, t := range []corev1.PodConditionType{corev1.PodReady, corev1.ContainersReady} {
		status.Conditions = append(status.Conditions, corev1.PodCondition{Type: t, Status: cond, LastTransitionTime: now})
	}
	patch, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return err
	}
	path := "/api/v1/namespaces/" + url.PathEscape(p.Namespace) + "/pods/" + url.PathEscape(p.Name) + "/status"
	if err := c.Do(ctx, http.MethodPatch, path, "application/merge-patch+json", patch, nil); err != nil {
		return fmt.Errorf("pod %s: reporting %s: %w", p.Name, phase, err)
	}
	return nil
}
