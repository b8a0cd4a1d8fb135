package ringbench

//go:generate go tool bpf2go -tags linux ringbench ringbench.bpf.c -- -O2 -g -Wall -Werror
//go:generate sh -c "sha256sum ringbench.bpf.c > ringbench.bpf.c.sha256"
