# Shared by the guests' payloads (POSIX sh: busybox ash in the VM, dash in
# the systemd guest). test/vm/run.sh and test/systemd/run.sh put it in
# every payload as /payload/guestlib.sh; a guest sources it after defining
# fail WHAT WHY, its own way to report a failure.

# uptime_cs: the guest's clock (/proc/uptime) in hundredths of a second.
uptime_cs() {
	read -r wf_up _ </proc/uptime
	echo $((${wf_up%.*} * 100 + 1${wf_up#*.} - 100))
}

# wait_for DEADLINE_S DESCRIPTION COMMAND...: runs COMMAND every 0.05 s
# until it succeeds (0; $waited: the ms it took) or DEADLINE_S seconds have
# passed on the guest's clock (fail DESCRIPTION "not within N s", then 1).
# A wait is for a condition, never for a stretch of time; deadlines are
# generous, TCG being several times slower than a host.
wait_for() {
	wf_limit=$1 wf_what=$2
	shift 2
	wf_t0=$(uptime_cs)
	while ! "$@"; do
		if [ $(($(uptime_cs) - wf_t0)) -ge $((wf_limit * 100)) ]; then
			waited=$((wf_limit * 1000))
			fail "$wf_what" "not within $wf_limit s"
			return 1
		fi
		sleep 0.05
	done
	waited=$((($(uptime_cs) - wf_t0) * 10))
}
