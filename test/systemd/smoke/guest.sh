#!/bin/sh
# The systemd guest is fit: systemd is PID 1 and running, dbus and logind
# start, and nobody is logged in (the case issue 26 starts from).
set -e
echo "pid 1: $(cat /proc/1/comm)"
[ "$(cat /proc/1/comm)" = systemd ]
systemctl start dbus systemd-logind
systemctl is-active dbus systemd-logind
echo "top subtree_control: $(cat /sys/fs/cgroup/cgroup.subtree_control)"
echo "sessions: $(loginctl list-sessions --no-legend | wc -l)"
echo "smoke ok"
