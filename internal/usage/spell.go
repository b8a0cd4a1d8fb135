package usage

import (
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
)

// How the advice is set where people set limits. Each rounds the limit up to
// a whole millicore (bandwidth.Millicores), the finest step Kubernetes takes.

// KubernetesCPU is a limit of cpus as a pod's spec spells it: "1050m", "2".
// Kubernetes sets no period (the kubelet's cpuCFSQuotaPeriod is the node's)
// and no burst.
func KubernetesCPU(cpus float64) string {
	return "resources.limits.cpu: " + resource.NewMilliQuantity(bandwidth.Millicores(cpus), resource.DecimalSI).String()
}

// DockerCPUs is a limit of cpus at Docker's default period: "--cpus 1.05".
func DockerCPUs(cpus float64) string {
	return "docker run --cpus " + strconv.FormatFloat(milli(bandwidth.Millicores(cpus)), 'f', -1, 64)
}

// DockerQuota is a limit of cpus at period as Docker's microseconds, for
// when a period or a burst is advised: "--cpu-period 250000 --cpu-quota
// 262500" (Docker refuses --cpus beside them). docker run has no flag for a
// burst: it is written to the cgroup's cpu.cfs_burst_us or cpu.max.burst.
func DockerQuota(cpus float64, period time.Duration) string {
	quota := bandwidth.AdvisedQuota(cpus, period) // rounded up, as the limit
	return fmt.Sprintf("docker run --cpu-period %d --cpu-quota %d", period.Microseconds(), quota.Microseconds())
}
