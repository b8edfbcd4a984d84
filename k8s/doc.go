// Package k8s writes the Kubernetes manifests of a sharded dbarena run:
// an Indexed Job of N pods, pod i running shard i of N (`--shard i/N`,
// every pod with the same `--run-id`), the Secret holding the target's
// password and the ConfigMap holding a plan file. The manifests are made
// of the Kubernetes API's own Go types (k8s.io/api), so they are what the
// API server accepts, and written as YAML (sigs.k8s.io/yaml) in the order
// `kubectl apply -f` creates them.
//
// A JobSpec says what to run; Manifests validates it (every problem at
// once, as *FieldError values naming the JobSpec field and its value) and
// returns the YAML. The package talks to no cluster.
//
// Only this package imports k8s.io/ and sigs.k8s.io/
// (internal/archtest's TestK8sImports).
package k8s
