package kube

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Request is a planned sweep to write instead of running it.
type Request struct {
	// Options are the emit flags resolved (options.Emit.Resolve).
	Options Options
	// Steps are the sweep's configurations as sweep.Plan made them (their
	// Opts.Bench says what each runs: memtouch's buffers must fit the
	// pod), and Given its parameters as the user gave them (flag → value).
	Steps []sweep.Step
	Given map[string]string
	// Pass are run's settings every pod is given as they were here
	// (--cgroup-version, --timeout).
	Pass        []string
	MaxConfigs  int
	Output      string // a file (kubernetes), a directory (sonobuoy); "" for stdout
	CommandLine string // the sweep's own, for the header
	// Skipped hears of each configuration left out, and why.
	Skipped func(c sweep.Config, why string)
}

// Emit writes the sweep's Jobs or plugins.
func Emit(r Request, stdout io.Writer) error {
	o := r.Options
	runs, err := r.runs(o)
	if err != nil {
		return err
	}
	if o.Emit == Sonobuoy {
		return writePlugins(r.Output, stdout, o, runs, r.CommandLine)
	}
	if err := atomicfile.CheckFlag("output", r.Output); err != nil {
		return err
	}
	o.Header = jobsHeader(o, runs, r.Output, r.CommandLine)
	if r.Output == "" {
		return WriteJobs(stdout, o, runs)
	}
	return atomicfile.Write(r.Output, func(w io.Writer) error { return WriteJobs(w, o, runs) })
}

// runs are the pods' runs of the planned steps: what each runs, under
// which limit; a step the sweep would skip is skipped here too.
func (r Request) runs(o Options) ([]Run, error) {
	var given []string // the parameters given, in the order of config.Params
	for _, p := range config.ParamsFor(config.Batch) {
		if _, ok := r.Given[p.Name]; ok && p.Name != "cpus" {
			given = append(given, p.Name)
		}
	}
	var runs []Run
	for i, st := range r.Steps {
		if st.Skip != "" {
			if r.Skipped != nil {
				r.Skipped(st.Config, st.Skip)
			}
			continue
		}
		if err := podFits(st, o); err != nil {
			return nil, err
		}
		cpus := st.Config.Get("cpus")
		q, ok := CPULimit(cpus)
		if !ok {
			return nil, badinput.Errorf("cpus", "invalid --cpus %q for --emit: a pod's CPU limit is whole millicores (steps of 0.001 CPUs)", cpus)
		}
		run := Run{Index: i, CPU: q, Args: []string{"run", "--cgroup", "current", "--format", "json"}}
		if o.Emit == Sonobuoy {
			run.Args = append(run.Args, "--sonobuoy-results", SonobuoyResults)
		}
		for _, name := range given {
			if r.Given["command"] != "" && (name == "workload" || name == "command") {
				continue // the command goes after --, as a person gives it
			}
			v := st.Config.Get(name)
			if v == "" {
				v = r.Given[name]
			}
			if p, _ := config.Lookup(name); p.Kind == config.Bool {
				run.Args = append(run.Args, "--"+name+"="+v)
			} else {
				run.Args = append(run.Args, "--"+name, v)
			}
		}
		run.Args = append(run.Args, r.Pass...)
		if c := r.Given["command"]; c != "" {
			var argv []string
			if err := json.Unmarshal([]byte(c), &argv); err != nil {
				return nil, badinput.Errorf("command", "invalid command %s: %v", c, err)
			}
			run.Args = append(append(run.Args, "--"), argv...)
		}
		for _, p := range st.Config {
			run.Swept = append(run.Swept, Label{Key: p.Flag, Value: p.Value})
		}
		runs = append(runs, run)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w (%d): nothing to emit", sweep.ErrAllSkipped, len(r.Steps))
	}
	if n := len(runs) * max(1, len(o.Nodes)); n > r.MaxConfigs {
		return nil, badinput.Errorf("max-configs", "%s on %s are %s, more than --max-configs allows (%d); narrow the lists, or give --max-configs %d",
			words.N(len(runs), "configuration"), words.N(len(o.Nodes), "node"), words.N(n, "Job"), r.MaxConfigs, n)
	}
	return runs, nil
}

// processMemory is what a run needs besides memtouch's buffers.
const processMemory = 64 << 20

// podFits refuses a configuration whose memtouch buffers would not fit the
// pod's memory limit: the pod would be OOM-killed, its result lost.
func podFits(st sweep.Step, o Options) error {
	b := st.Opts.Bench
	if b.Workload != "memtouch" {
		return nil
	}
	// Fresh holds a buffer at a time; reuse keeps one per operation of
	// the batch.
	kept, what := int64(1), "a buffer per worker"
	buffer := b.Params.Int("buffer_bytes")
	if b.Params.String("memory") == decl.MemoryReuse {
		kept, what = int64(b.Batch), fmt.Sprintf("--memory reuse keeps --batch %d buffers per worker", b.Batch)
	}
	need := int64(b.Workers)*kept*int64(buffer) + processMemory
	if resource.NewQuantity(need, resource.BinarySI).Cmp(o.Memory) > 0 {
		return badinput.Errorf("pod-memory", "invalid --pod-memory %s: memtouch with --workers %d and --buffer %d needs about %d MiB (%s, and 64 MiB for the process); give --pod-memory %dMi or more",
			o.Memory.String(), b.Workers, buffer, need>>20, what, (need+(1<<20)-1)>>20)
	}
	return nil
}
