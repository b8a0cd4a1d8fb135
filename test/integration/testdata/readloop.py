#!/usr/bin/env python3
"""The plain loop that `throttlebench sample` is measured against.

Reads a cgroup's usage counter (cpuacct.usage, or cpu.stat's usage_usec) at
start + k * interval for duration, as sample does, and prints its own CPU
time over the loop as JSON: {"cpu_s", "wall_s", "readings"}.

    readloop.py COUNTER_FILE INTERVAL_S DURATION_S
"""
import json
import os
import sys
import time


def main():
    path, interval, duration = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    v2 = os.path.basename(path) == "cpu.stat"
    fd = os.open(path, os.O_RDONLY)
    last = round(duration / interval)
    cpu0 = time.process_time()
    start = time.monotonic()
    value = 0
    for k in range(last + 1):
        wait = start + k * interval - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        data = os.pread(fd, 1024, 0)
        if v2:
            for line in data.split(b"\n"):
                if line.startswith(b"usage_usec "):
                    value = int(line.split()[1]) * 1000
                    break
        else:
            value = int(data)
    cpu = time.process_time() - cpu0
    wall = time.monotonic() - start
    os.close(fd)
    json.dump({"cpu_s": cpu, "wall_s": wall, "readings": last + 1, "last_ns": value}, sys.stdout)


if __name__ == "__main__":
    main()
