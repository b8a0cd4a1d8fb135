package report

import (
	"strings"
)

// NodeEnv names the environment variable that carries the Kubernetes node
// a pod runs on: the Jobs and plugins that sweep --emit writes set it from
// the downward API (spec.nodeName), so that every result says where it
// ran. A pod's hostname is its own name, not its node's.
const NodeEnv = "THROTTLEBENCH_NODE"

// NodeName is a node name as the result keeps it: what a node's name may
// hold (a DNS subdomain: lower-case letters, digits, '-' and '.', at most
// 253 characters), "" for anything else, so that a stray value cannot
// break a table or a label.
func NodeName(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 253 {
		return ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return ""
		}
	}
	return s
}
