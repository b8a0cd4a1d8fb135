package kube

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"

	"github.com/throttlebench/throttlebench/internal/sweep"
)

// What --emit writes.
const (
	Kubernetes = "kubernetes"
	Sonobuoy   = "sonobuoy"
)

// Defaults and bounds of the emit flags (resolved by internal/options).
const (
	DefaultImage     = "throttlebench:dev"
	DefaultPodMemory = "256Mi"
	DefaultTTL       = 24 * time.Hour
	// DefaultDeadline is a Job's activeDeadlineSeconds unless --timeout
	// asks for longer: a pod that does not start, or does not end, is
	// stopped then, so that the next configuration never shares its node.
	DefaultDeadline = 30 * time.Minute
	// DeadlineMargin is what a Job's deadline leaves beyond --timeout for
	// pulling the image and starting the pod.
	DeadlineMargin = 10 * time.Minute
	// MaxNodes is the most nodes --per-node takes.
	MaxNodes = 10000
)

// NodeName says what is wrong with a node name ("" when nothing), by
// Kubernetes' own rule for one: a DNS subdomain.
func NodeName(s string) string {
	return strings.Join(content.IsDNS1123Subdomain(s), "; ")
}

// SweepID says what is wrong with a sweep id ("" when nothing): a DNS
// label that keeps the longest names made of it (a Job's, a plugin's)
// label values, as Kubernetes and Sonobuoy put them on their pods.
func SweepID(s string) string {
	if errs := content.IsDNS1123Label(s); len(errs) > 0 {
		return strings.Join(errs, "; ")
	}
	for _, name := range []string{JobName(s, sweep.MaxConfigs-1, MaxNodes-1), PluginName(s, sweep.MaxConfigs-1)} {
		if errs := content.IsLabelValue(name); len(errs) > 0 {
			return fmt.Sprintf("too long: it is part of every Job's and plugin's name, such as %s, which its pods carry as a label value: %s", name, strings.Join(errs, "; "))
		}
	}
	return ""
}

// labelValue makes a value of a swept parameter fit a label: µs becomes
// us, any other character a label value cannot hold becomes '_', and the
// ends are trimmed to what a label value may start and end with.
// apimachinery says which characters those are. Labels are for selecting
// and reading; the run's own arguments carry the exact value.
func labelValue(s string) string {
	s = strings.Map(func(r rune) rune {
		if len(content.IsLabelValue("a"+string(r)+"a")) > 0 {
			return '_'
		}
		return r
	}, strings.ReplaceAll(s, "µ", "u"))
	if len(s) > content.LabelValueMaxLength {
		s = s[:content.LabelValueMaxLength]
	}
	return strings.TrimFunc(s, func(r rune) bool { return len(content.IsLabelValue(string(r))) > 0 })
}

// CPULimit reads a --cpus value as a pod's CPU limit: whole millicores,
// the finest unit a pod's limit is written in; ok is false for anything
// finer, or for no CPU at all.
func CPULimit(cpus string) (q resource.Quantity, ok bool) {
	given, err := resource.ParseQuantity(cpus)
	if err != nil || given.Sign() <= 0 {
		return q, false
	}
	q = *resource.NewMilliQuantity(given.MilliValue(), resource.DecimalSI)
	return q, q.Cmp(given) == 0
}
