package report

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// NodeEnv names the environment variable that carries the Kubernetes node
// a pod runs on: the Jobs and plugins that sweep --emit writes set it from
// the downward API (spec.nodeName), so that every result says where it
// ran. A pod's hostname is its own name, not its node's.
const NodeEnv = "THROTTLEBENCH_NODE"

// NodeName is a node name as the result keeps it: a name Kubernetes
// accepts for a node (apimachinery's rule, a DNS subdomain), "" for
// anything else, so that a stray value cannot break a table or a label.
func NodeName(s string) string {
	s = strings.TrimSpace(s)
	if len(content.IsDNS1123Subdomain(s)) > 0 {
		return ""
	}
	return s
}
