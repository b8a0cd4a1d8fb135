package report

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// HostInfo describes the machine a run happens on.
func HostInfo(started time.Time) Host {
	h := Host{NumCPU: runtime.NumCPU(), GoVersion: runtime.Version(), StartedAt: started.UTC().Format(time.RFC3339)}
	h.Kernel = kernelRelease()
	h.Hostname, _ = os.Hostname()
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		h.CPUModel = cpuModel(data)
	}
	h.Node = NodeName(os.Getenv(NodeEnv))
	return h
}

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

func cpuModel(cpuinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
