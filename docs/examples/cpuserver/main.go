// Command cpuserver is a small Go HTTP server whose every request costs CPU
// time, the Go counterpart of cpu_server.py for the examples of
// `throttlebench latency --target ... --serve` and `size`: each GET spends
// WORK_MS milliseconds of its thread's CPU time (CLOCK_THREAD_CPUTIME_ID,
// so that time spent throttled is not counted as work done) and allocates
// a little, so that the collector runs as a real server's does. As a Go
// program its parallelism is GOMAXPROCS, which --gomaxprocs sets in its
// environment.
//
//	go build -o /tmp/cpuserver ./docs/examples/cpuserver
//	/tmp/cpuserver PORT [WORK_MS]
package main

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: cpuserver PORT [WORK_MS]")
		os.Exit(2)
	}
	work := 5 * time.Millisecond
	if len(os.Args) > 2 {
		ms, err := strconv.ParseFloat(os.Args[2], 64)
		if err != nil || ms < 0 {
			fmt.Fprintf(os.Stderr, "cpuserver: invalid WORK_MS %q\n", os.Args[2])
			os.Exit(2)
		}
		work = time.Duration(ms * float64(time.Millisecond))
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		spin(work)
		w.Header().Set("Content-Length", "3")
		w.Write([]byte("ok\n"))
	})
	if err := http.ListenAndServe("127.0.0.1:"+os.Args[1], nil); err != nil {
		fmt.Fprintln(os.Stderr, "cpuserver:", err)
		os.Exit(1)
	}
}

// sink keeps the garbage reachable until the next request replaces it.
var sink []byte

// spin runs until this thread's CPU clock has advanced by d, the goroutine
// locked to its thread so that the clock is the work's own.
func spin(d time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	x := uint64(1)
	for threadCPU()-start < d {
		for range 1000 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	sink = make([]byte, 64<<10) // a response's worth of garbage
	sink[0] = byte(x)
}

func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}
