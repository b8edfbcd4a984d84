//go:build k8s

package k8stest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// localPod is a pod made ready to run as a local process: what the kubelet
// would resolve, with paths inside the container mapped to directories of
// the test.
type localPod struct {
	pod     *corev1.Pod
	index   int
	argv    []string
	env     []string // the container's environment, NAME=value, as resolved
	dir     string   // working directory
	procEnv []string
}

// mount maps a path inside the container to a local path.
type mount struct{ path, local string }

// podResolver resolves one pod against the API server.
type podResolver struct {
	ctx     context.Context
	c       *Client
	pod     *corev1.Pod
	secrets map[string]*corev1.Secret
	cms     map[string]*corev1.ConfigMap
}

func (r *podResolver) secret(name string, optional *bool) (*corev1.Secret, error) {
	if s, ok := r.secrets[name]; ok {
		return s, nil
	}
	s := new(corev1.Secret)
	err := r.c.Get(r.ctx, "/api/v1/namespaces/"+url.PathEscape(r.pod.Namespace)+"/secrets/"+url.PathEscape(name), s)
	if err != nil {
		if IsStatus(err, 404) && optional != nil && *optional {
			s = nil
		} else {
			return nil, fmt.Errorf("secret %s: %w", name, err)
		}
	}
	r.secrets[name] = s
	return s, nil
}

func (r *podResolver) configMap(name string, optional *bool) (*corev1.ConfigMap, error) {
	if cm, ok := r.cms[name]; ok {
		return cm, nil
	}
	cm := new(corev1.ConfigMap)
	err := r.c.Get(r.ctx, "/api/v1/namespaces/"+url.PathEscape(r.pod.Namespace)+"/configmaps/"+url.PathEscape(name), cm)
	if err != nil {
		if IsStatus(err, 404) && optional != nil && *optional {
			cm = nil
		} else {
			return nil, fmt.Errorf("configmap %s: %w", name, err)
		}
	}
	r.cms[name] = cm
	return cm, nil
}

// fieldPathRef is metadata.labels['KEY'] or metadata.annotations['KEY'].
var fieldPathRef = regexp.MustCompile(`^metadata\.(labels|annotations)\['(.*)'\]$`)

// field resolves a downward-API field path of the pod.
func (r *podResolver) field(path string) (string, error) {
	p := r.pod
	switch path {
	case "metadata.name":
		return p.Name, nil
	case "metadata.namespace":
		return p.Namespace, nil
	case "metadata.uid":
		return string(p.UID), nil
	case "spec.nodeName":
		return p.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return p.Spec.ServiceAccountName, nil
	case "status.hostIP", "status.podIP":
		return "127.0.0.1", nil
	}
	if m := fieldPathRef.FindStringSubmatch(path); m != nil {
		if m[1] == "labels" {
			return p.Labels[m[2]], nil
		}
		return p.Annotations[m[2]], nil
	}
	return "", fmt.Errorf("field path %q is not supported", path)
}

// resolveEnv gives the container's environment as the kubelet builds it:
// envFrom first, then env in order, where a plain value may refer to the
// variables defined before it with $(NAME). The variables the kubelet adds
// for services (KUBERNETES_SERVICE_HOST, …) are left out.
func (r *podResolver) resolveEnv(ctr *corev1.Container) ([]string, map[string]string, error) {
	vars := map[string]string{}
	var order []string
	set := func(name, value string) {
		if _, ok := vars[name]; !ok {
			order = append(order, name)
		}
		vars[name] = value
	}
	for _, from := range ctr.EnvFrom {
		var data map[string]string
		switch {
		case from.ConfigMapRef != nil:
			cm, err := r.configMap(from.ConfigMapRef.Name, from.ConfigMapRef.Optional)
			if err != nil {
				return nil, nil, err
			}
			if cm != nil {
				data = cm.Data
			}
		case from.SecretRef != nil:
			s, err := r.secret(from.SecretRef.Name, from.SecretRef.Optional)
			if err != nil {
				return nil, nil, err
			}
			if s != nil {
				data = map[string]string{}
				for k, v := range s.Data {
					data[k] = string(v)
				}
			}
		}
		for _, k := range slices.Sorted(mapsKeys(data)) {
			set(from.Prefix+k, data[k])
		}
	}
	for _, e := range ctr.Env {
		if e.ValueFrom == nil {
			set(e.Name, Expand(e.Value, mapLookup(vars)))
			continue
		}
		vf := e.ValueFrom
		switch {
		case vf.FieldRef != nil:
			v, err := r.field(vf.FieldRef.FieldPath)
			if err != nil {
				return nil, nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			set(e.Name, v)
		case vf.SecretKeyRef != nil:
			ref := vf.SecretKeyRef
			s, err := r.secret(ref.Name, ref.Optional)
			if err != nil {
				return nil, nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			v, ok := []byte(nil), false
			if s != nil {
				v, ok = s.Data[ref.Key]
			}
			if !ok {
				if ref.Optional != nil && *ref.Optional {
					continue
				}
				return nil, nil, fmt.Errorf("env %s: secret %s has no key %s", e.Name, ref.Name, ref.Key)
			}
			set(e.Name, string(v))
		case vf.ConfigMapKeyRef != nil:
			ref := vf.ConfigMapKeyRef
			cm, err := r.configMap(ref.Name, ref.Optional)
			if err != nil {
				return nil, nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			v, ok := "", false
			if cm != nil {
				v, ok = cm.Data[ref.Key]
			}
			if !ok {
				if ref.Optional != nil && *ref.Optional {
					continue
				}
				return nil, nil, fmt.Errorf("env %s: configmap %s has no key %s", e.Name, ref.Name, ref.Key)
			}
			set(e.Name, v)
		default:
			return nil, nil, fmt.Errorf("env %s: only value, fieldRef, secretKeyRef and configMapKeyRef are supported", e.Name)
		}
	}
	env := make([]string, 0, len(order))
	for _, n := range order {
		env = append(env, n+"="+vars[n])
	}
	return env, vars, nil
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// writeKeys writes data as files into dir: every key, or only items (key
// to relative path) when there are any.
func writeKeys(dir string, data map[string][]byte, items []corev1.KeyToPath, optional bool) error {
	if len(items) == 0 {
		for k, v := range data {
			if err := os.WriteFile(filepath.Join(dir, k), v, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			if optional {
				continue
			}
			return fmt.Errorf("no key %s", it.Key)
		}
		p := filepath.Join(dir, filepath.FromSlash(it.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, v, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// volumes makes a local directory for each of the pod's volumes under
// root: a ConfigMap's or a Secret's keys as files, a downward-API volume's
// fields as files, an empty directory for emptyDir and for projected
// volumes (the service-account token volume the API server adds to every
// pod: no token is issued here).
func (r *podResolver) volumes(root string) (map[string]string, error) {
	dirs := map[string]string{}
	for _, v := range r.pod.Spec.Volumes {
		dir := filepath.Join(root, "volumes", v.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		dirs[v.Name] = dir
		var err error
		switch {
		case v.ConfigMap != nil:
			var cm *corev1.ConfigMap
			cm, err = r.configMap(v.ConfigMap.Name, v.ConfigMap.Optional)
			if err == nil && cm != nil {
				data := map[string][]byte{}
				for k, s := range cm.Data {
					data[k] = []byte(s)
				}
				for k, b := range cm.BinaryData {
					data[k] = b
				}
				err = writeKeys(dir, data, v.ConfigMap.Items, v.ConfigMap.Optional != nil && *v.ConfigMap.Optional)
			}
		case v.Secret != nil:
			var s *corev1.Secret
			s, err = r.secret(v.Secret.SecretName, v.Secret.Optional)
			if err == nil && s != nil {
				err = writeKeys(dir, s.Data, v.Secret.Items, v.Secret.Optional != nil && *v.Secret.Optional)
			}
		case v.DownwardAPI != nil:
			for _, it := range v.DownwardAPI.Items {
				if it.FieldRef == nil {
					err = fmt.Errorf("item %s: only fieldRef is supported", it.Path)
					break
				}
				var val string
				if val, err = r.field(it.FieldRef.FieldPath); err != nil {
					break
				}
				if err = writeKeys(dir, map[string][]byte{it.Path: []byte(val)}, nil, false); err != nil {
					break
				}
			}
		case v.EmptyDir != nil, v.Projected != nil:
		default:
			err = fmt.Errorf("only configMap, secret, downwardAPI, emptyDir and projected volumes are supported")
		}
		if err != nil {
			return nil, fmt.Errorf("volume %s: %w", v.Name, err)
		}
	}
	return dirs, nil
}

// mounts maps the container's mount paths to the local directories of
// their volumes (with subPath), longest path first.
func mounts(ctr *corev1.Container, dirs map[string]string) ([]mount, error) {
	var ms []mount
	for _, vm := range ctr.VolumeMounts {
		dir, ok := dirs[vm.Name]
		if !ok {
			return nil, fmt.Errorf("volume mount %s: no such volume", vm.Name)
		}
		if vm.SubPathExpr != "" {
			return nil, fmt.Errorf("volume mount %s: subPathExpr is not supported", vm.Name)
		}
		p := strings.TrimRight(vm.MountPath, "/")
		if p == "" {
			return nil, fmt.Errorf("volume mount %s: cannot mount at /", vm.Name)
		}
		ms = append(ms, mount{path: p, local: filepath.Join(dir, filepath.FromSlash(vm.SubPath))})
	}
	slices.SortFunc(ms, func(a, b mount) int { return len(b.path) - len(a.path) })
	return ms, nil
}

// isPathByte tells whether b can be part of a path name.
func isPathByte(b byte) bool {
	return b == '/' || b == '.' || b == '_' || b == '-' ||
		'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// rewritePaths replaces each mount path in s by its local directory where
// it stands as a whole path or the start of one: not preceded by a path
// character, and followed by the end, a '/' or a character that is not
// part of a name ("--plan=/etc/dbarena/plan.yaml" becomes
// "--plan=LOCAL/plan.yaml" for a mount at /etc/dbarena).
func rewritePaths(s string, ms []mount) string {
	if len(ms) == 0 || !strings.Contains(s, "/") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if i == 0 || !isPathByte(s[i-1]) {
			matched := false
			for _, m := range ms {
				rest, ok := strings.CutPrefix(s[i:], m.path)
				if ok && (rest == "" || rest[0] == '/' || !isPathByte(rest[0])) {
					b.WriteString(m.local)
					i += len(m.path)
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}
