//go:build tools

// The binaries test/kube/build.sh builds, imported so that go mod tidy
// keeps what they need; never compiled (a main package cannot be imported).
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
