package report

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strings"
	"time"
)

// HostInfo describes the machine a run happens on.
func HostInfo(started time.Time) Host {
	h := Host{NumCPU: runtime.NumCPU(), GoVersion: runtime.Version(), StartedAt: started.UTC().Format(time.RFC3339)}
	h.Kernel = kernelRelease()
	h.Hostname, _ = os.Hostname()
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		h.CPUModel = cpuModel(data)
	}
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
