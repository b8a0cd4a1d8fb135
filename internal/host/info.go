package host

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/report"
)

// Info describes the machine a run happens on, for a result's host block:
// the kernel, the CPU model (from root/proc/cpuinfo: root is "/" in
// production, a fixture tree in tests), the CPUs, Go, the hostname, when
// the run started, and the Kubernetes node the environment names
// (report.NodeEnv). What cannot be read stays empty.
func Info(root string, started time.Time) report.Host {
	h := report.Host{NumCPU: runtime.NumCPU(), GoVersion: runtime.Version(), StartedAt: started.UTC().Format(time.RFC3339)}
	h.Kernel = kernelRelease()
	h.Hostname, _ = os.Hostname()
	if data, err := os.ReadFile(filepath.Join(root, "proc/cpuinfo")); err == nil {
		h.CPUModel = cpuModel(data)
	}
	h.Node = report.NodeName(os.Getenv(report.NodeEnv))
	return h
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
