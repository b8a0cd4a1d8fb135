// Package kube writes a planned sweep as Kubernetes manifests (sweep
// --emit): it checks the emit flags, turns each planned configuration into
// the run of a pod (Emit), and writes one batch/v1 Job per configuration
// (and per node with --per-node), or one Sonobuoy plugin per
// configuration. The objects are the k8s.io/api types, written by
// sigs.k8s.io/yaml; names, labels and quantities are checked by
// apimachinery's own rules. kubectl does the talking: nothing here reaches
// a cluster.
//
// It may not restate a Kubernetes rule apimachinery has, or plan a sweep
// itself (the steps come from internal/sweep).
// results.go is the plugin container's side, run --sonobuoy-results.
package kube
