// cpujob is the CPU-bound command the compare gate's benchmark runs: it
// hashes a 4 KiB block N times, one thread, so that its CPU time is the
// code's alone and a change of N is a change of the code of known size
// (BenchmarkCompareGate: ×1.05 and ×1.2).
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strconv"
)

func main() {
	n, err := strconv.Atoi(os.Args[len(os.Args)-1])
	if err != nil || n < 0 {
		fmt.Fprintln(os.Stderr, "usage: cpujob N")
		os.Exit(2)
	}
	block := make([]byte, 4096)
	sum := sha256.Sum256(block)
	for range n {
		copy(block, sum[:])
		sum = sha256.Sum256(block)
	}
	if sum[0] == 0 && sum[1] == 0 && sum[2] == 0 && sum[3] == 0 {
		fmt.Println("unlikely") // keeps the loop's result alive
	}
}
