//go:build k8s

// Package k8stest runs Kubernetes manifests against a real control plane
// (kube-apiserver, etcd and the Job controller of
// kube-controller-manager, as scripts/k8s-control-plane starts them) and
// plays the kubelet's part for the pods the Job controller creates: each
// pod's command runs as a local process and its outcome goes back to the
// API server, so that the Job controller sees the Job finish.
//
// Every file carries the build tag k8s: go test ./... and make test never
// compile the package. Run it with make k8s-test, or by hand:
//
//	scripts/k8s-control-plane build && scripts/k8s-control-plane start
//	eval "$(scripts/k8s-control-plane env)"
//	go test -tags k8s -count=1 -v ./internal/k8stest/
//
// The tests need DBARENA_K8S_SERVER (https://127.0.0.1:PORT),
// DBARENA_K8S_CERT and DBARENA_K8S_KEY (a client certificate the API server
// accepts, in PEM files) and DBARENA_K8S_CA (the CA of the API server's
// serving certificate); without them they fail.
package k8stest
