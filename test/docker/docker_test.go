//go:build linux

// Package dockertest checks the container path end to end: the image
// throttlebench:dev run by a real Docker engine with --cpu-period/--cpu-quota
// and --cpus. test/docker/run.sh (make test-docker) starts the engine, builds
// the image, and runs these tests with TB_DOCKER_IMAGE set.
package dockertest

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"image/color"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type result struct {
	Cgroup struct {
		Mode          string  `json:"mode"`
		Version       int     `json:"version"`
		Path          string  `json:"path"`
		PeriodUs      *int64  `json:"period_us"`
		QuotaUs       int64   `json:"quota_us"`
		EffectiveCPUs float64 `json:"effective_cpus"`
	} `json:"cgroup"`
	Stats struct {
		MeanMs float64 `json:"mean_ms"`
	} `json:"stats"`
	Throttling struct {
		NrThrottled *uint64 `json:"nr_throttled"`
	} `json:"throttling"`
	Model struct {
		Ratio float64 `json:"ratio"`
	} `json:"model"`
}

func image(t *testing.T) string {
	img := os.Getenv("TB_DOCKER_IMAGE")
	if img == "" {
		t.Skip("needs a Docker engine and the image: run test/docker/run.sh (make test-docker)")
	}
	return img
}

// dockerRun runs the image with docker flags and throttlebench arguments.
func dockerRun(t *testing.T, dockerFlags []string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command("docker", append(append(append([]string{"run", "--rm", "--network", "none"}, dockerFlags...), image(t)), args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "docker %v: %s", cmd.Args[1:], errb.String())
	return out.String(), errb.String()
}

// batch is each iteration's work in runJSON: 100, or TB_DOCKER_BATCH. The
// Docker guest of test/systemd sets 30: emulated, an iteration of 100 at
// 0.2 CPU took 6 s, and TestQuotaInsideContainer 55 s of a CI run; at 30
// an iteration there is still 113 ms of work against 20 ms of quota a
// period (13× slower at 0.2 CPU than unlimited), throttled as the checks
// need. Not for a host: there, 30 is a few ms of work.
func batch() string {
	if b := os.Getenv("TB_DOCKER_BATCH"); b != "" {
		return b
	}
	return "100"
}

func runJSON(t *testing.T, dockerFlags ...string) result {
	t.Helper()
	out, _ := dockerRun(t, dockerFlags, "run", "--batch", batch(), "--iterations", "3", "--format", "json")
	var r result
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	return r
}

func TestQuotaInsideContainer(t *testing.T) {
	limited := runJSON(t, "--cpu-period=100000", "--cpu-quota=20000")
	free := runJSON(t)

	assert.Equal(t, "current", limited.Cgroup.Mode, "a container cannot create slices: auto mode measures the container's own cgroup")
	assert.Equal(t, int64(20000), limited.Cgroup.QuotaUs)
	require.NotNil(t, limited.Cgroup.PeriodUs)
	assert.Equal(t, int64(100000), *limited.Cgroup.PeriodUs)
	assert.InDelta(t, 0.2, limited.Cgroup.EffectiveCPUs, 1e-9)
	require.NotNil(t, limited.Throttling.NrThrottled)
	assert.Greater(t, *limited.Throttling.NrThrottled, uint64(0))

	assert.Equal(t, int64(-1), free.Cgroup.QuotaUs, "no CPU flags: no quota")
	ratio := limited.Stats.MeanMs / free.Stats.MeanMs
	t.Logf("container mean %.1f ms at 0.2 CPUs vs %.1f ms unlimited: %.2f×; model ratio %.2f", limited.Stats.MeanMs, free.Stats.MeanMs, ratio, limited.Model.Ratio)
	assert.GreaterOrEqual(t, ratio, 3.0)
}

func TestDockerCPUsFlag(t *testing.T) {
	r := runJSON(t, "--cpus=1.5")
	assert.Equal(t, int64(150000), r.Cgroup.QuotaUs)
	assert.InDelta(t, 1.5, r.Cgroup.EffectiveCPUs, 1e-9)
}

// `docker run throttlebench:dev` with no arguments measures, for a person.
func TestImageDefaultCommand(t *testing.T) {
	out, _ := dockerRun(t, []string{"--cpus=0.5"})
	assert.Contains(t, out, "Time (mean ± σ)")
	assert.Contains(t, out, "effective 0.5 CPUs")
}

// Bad input inside a container: exit 2, one line.
func TestInvalidInputInContainer(t *testing.T) {
	cmd := exec.Command("docker", "run", "--rm", "--network", "none", image(t), "run", "--cost", "99")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Contains(t, errb.String(), "--cost 99")
}

// The image is the static binary alone. 40 MiB is a ceiling that alarms on
// a regression (a dependency linked by mistake, an embedded asset), not a
// target: the libraries the design names are linked for their jobs
// (cmd/throttlebench/deps_test.go), whatever they weigh. When it trips,
// test/docker/weigh.sh says what each dependency adds.
func TestImageSize(t *testing.T) {
	out, err := exec.Command("docker", "image", "inspect", "-f", "{{.Size}}", image(t)).Output()
	require.NoError(t, err)
	size, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	require.NoError(t, err)
	t.Logf("image %s: %d bytes (%.2f MiB)", image(t), size, float64(size)/(1<<20))
	assert.LessOrEqual(t, size, int64(40<<20), "the image grew over its 40 MiB ceiling: see what grew with test/docker/weigh.sh")
}

// A sweep inside the container draws its plots there (the font is compiled
// in, a FROM scratch image has none) into a bind-mounted directory; the host
// decodes the PNG and parses the SVG.
func TestPlotInsideContainer(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"sweep.png", "sweep.svg"} {
		_, stderr := dockerRun(t, []string{"--cpus=0.5", "-v", dir + ":/out"},
			"sweep", "--cgroup", "current", "--workers", "1,2", "--batch", "20", "--iterations", "3",
			"--quiet", "--format", "json", "-o", "/out/"+name+".json", "--plot", "/out/"+name)
		if stderr != "" {
			t.Logf("%s: %s", name, stderr)
		}

		data, err := os.ReadFile(filepath.Join(dir, name+".json"))
		require.NoError(t, err)
		var rows []result
		require.NoError(t, json.Unmarshal(data, &rows), string(data))
		require.Len(t, rows, 2, "--workers 1,2: two configurations")
		assert.InDelta(t, 0.5, rows[0].Cgroup.EffectiveCPUs, 1e-9)
	}

	f, err := os.Open(filepath.Join(dir, "sweep.png"))
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	assert.Equal(t, 960, img.Bounds().Dx())
	assert.Equal(t, 1440, img.Bounds().Dy())
	// The series is drawn in the first colour of the palette (internal/plot's
	// seriesColor: gonum's dark blue, 24,90,169, first since 745a16e); text
	// in black.
	series, black := 0, 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			switch {
			case c.R == 24 && c.G == 90 && c.B == 169:
				series++
			case c.R < 40 && c.G < 40 && c.B < 40:
				black++
			}
		}
	}
	assert.Greater(t, series, 500, "pixels of the measured line and its markers")
	assert.Greater(t, black, 2000, "dark pixels: the text (about 5000 here; the thin axes are grey once anti-aliased)")

	data, err := os.ReadFile(filepath.Join(dir, "sweep.svg"))
	require.NoError(t, err)
	dec := xml.NewDecoder(bytes.NewReader(data))
	var root string
	var texts []string
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			inText = tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
	assert.Equal(t, "svg", root)
	all := strings.Join(texts, "\n")
	assert.Contains(t, all, "mean iteration duration (ms)")
	assert.Contains(t, all, "--workers", "the swept setting is the x axis")
	assert.Contains(t, all, "throttled fraction of CFS periods")
}

// latency in a container: the open loop runs in the container's own cgroup
// (current mode), its bursts throttled by the quota docker set. Each 750 ms
// cycle's 34.5 requests of 5 ms arrive within 150 ms: 1.15 CPUs while they
// arrive, 0.23 on average. The quota, 0.4 CPU, is below what the container
// gets beside a busy loop on every CPU (half of each): at --cpus=1 the
// neighbours decided instead, and beside a busy loop on one CPU the
// workers never used more than 0.99 CPUs in any 100 ms, were never
// throttled, and failed this test (a clean-clone CI run, issue 45). Any
// 100 ms within an on-phase offers about 77 ms of work against 40 ms of
// quota, wherever the container's periods start, and a backlog of 115 ms
// clears within three periods, long before the next cycle. 30 runs beside
// a busy loop on each CPU (test/docker/run.sh -run TestLatencyInsideContainer
// -count 30): 14 to 17 periods throttled (median 16) against the bound of
// more than none; cpu_utilisation 0.66 to 0.68 (mean 0.672, sd 0.008)
// against 0.95, 35 deviations out.
func TestLatencyInsideContainer(t *testing.T) {
	out, _ := dockerRun(t, []string{"--cpus=0.4"}, "latency", "--workers", "4", "--rate", "46", "--work", "5ms",
		"--arrivals", "onoff", "--on", "150ms", "--off", "600ms", "--duration", "3s", "--format", "json")
	var r struct {
		Cgroup struct {
			Mode    string `json:"mode"`
			QuotaUs int64  `json:"quota_us"`
		} `json:"cgroup"`
		Offered        int      `json:"offered"`
		Completed      int      `json:"completed"`
		CPUUtilisation *float64 `json:"cpu_utilisation"`
		PeakCPUs100ms  *float64 `json:"peak_cpus_100ms"`
		LatencyMs      struct {
			P99 float64 `json:"p99"`
		} `json:"latency_ms"`
		Throttling struct {
			NrThrottled *uint64 `json:"nr_throttled"`
		} `json:"throttling"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	assert.Equal(t, "current", r.Cgroup.Mode)
	assert.Equal(t, int64(40000), r.Cgroup.QuotaUs)
	assert.Equal(t, 138, r.Offered, "4 cycles of 34.5")
	assert.Equal(t, r.Offered, r.Completed)
	require.NotNil(t, r.CPUUtilisation)
	// 34.5 requests × 5 ms per 750 ms is 0.23 of a CPU, 0.27 with the
	// harness's own: 0.67 of the quota, an average over the window, where
	// a throttled period's use is all of it.
	assert.Less(t, *r.CPUUtilisation, 0.95)
	require.NotNil(t, r.PeakCPUs100ms)
	require.NotNil(t, r.Throttling.NrThrottled)
	assert.Greater(t, *r.Throttling.NrThrottled, uint64(0), "77 ms of work offered in a period meets a 40 ms quota")
	t.Logf("container latency: p99 %.1f ms, utilisation %.2f, peak %.2f CPUs per 100 ms, %d periods throttled",
		r.LatencyMs.P99, *r.CPUUtilisation, *r.PeakCPUs100ms, *r.Throttling.NrThrottled)
}
