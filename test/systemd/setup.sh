#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Build the stock systemd guest that test/systemd/run.sh boots: a Debian
# bookworm image (systemd as PID 1, dbus-user-session, libpam-systemd,
# Debian's docker.io, a user tbuser 1000:1000) made by Debian's
# debvm-create from the Debian mirror, with its own kernel and initrd
# taken out beside it.
#
# Usage: sudo bash test/systemd/setup.sh   (from any working directory)
#
# Idempotent and offline once cached: the image is rebuilt only when it is
# missing or when this script or tb-run changed (their hash is the stamp).
#   * host packages (apt): debvm, mmdebstrap, qemu-system-x86 (no
#     recommends), e2fsprogs (debugfs)
#   * $TB_SYSTEMD_CACHE/image.ext4   the raw ext4 root (2 GiB, sparse; about
#                                     710 MiB used)
#   * $TB_SYSTEMD_CACHE/vmlinuz, initrd.img, kernel.release, systemd.version
#   * $TB_SYSTEMD_CACHE/stamp        the hash of the inputs
# run.sh never writes the image: it boots it with qemu's -snapshot.
#
# Environment:
#   TB_SYSTEMD_CACHE  cache dir (default: <repo>/.cache/systemd)
#   TB_SYSTEMD_STORE  the images built, by stamp, for every clone (default:
#                     ~/.cache/throttlebench/systemd)
#   TB_SYSTEMD_SUITE  Debian release (default: bookworm: systemd 252, 6.1)
# To rebuild, delete the cache dir and the store's and run again.
set -euo pipefail

# shellcheck disable=SC2034 # read by lib.sh (message prefix)
TB_PROG=setup.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../vm/lib.sh
. "$HERE/../vm/lib.sh"
tb_install_traps
# shellcheck source=lib.sh
. "$HERE/lib.sh"

SUITE=${TB_SYSTEMD_SUITE:-bookworm}
[[ $SUITE =~ ^[a-z]+$ ]] || tb_die 2 "TB_SYSTEMD_SUITE must be a Debian release name (got '$SUITE')"
STAMP=$(cat "$HERE/setup.sh" "$HERE/tb-run" | sha256sum | cut -c1-16)-$SUITE

if tb_systemd_cached && [[ $(cat "$TB_SYSTEMD_CACHE/stamp") == "$STAMP" ]] &&
	command -v qemu-system-x86_64 >/dev/null; then
	tb_log "cached: $TB_SYSTEMD_CACHE ($(cat "$TB_SYSTEMD_CACHE/systemd.version"), kernel $(cat "$TB_SYSTEMD_CACHE/kernel.release"))"
	exit 0
fi
[[ $(id -u) == 0 ]] || tb_die 1 "must run as root to install packages and build the image"

# The image is the same for every clone of the same scripts: built once per
# stamp into a store outside the clone (as test/kube/build.sh keeps its
# binaries), and linked from there into a clone's cache in a moment. A
# clean clone (CI's) built it afresh each time: 65 s of make test's budget.
STORE=${TB_SYSTEMD_STORE:-${XDG_CACHE_HOME:-$HOME/.cache}/throttlebench/systemd}
from_store() {
	local f
	for f in image.ext4 vmlinuz initrd.img kernel.release systemd.version stamp; do
		[[ -s $STORE/$STAMP/$f ]] || return 1
	done
	mkdir -p "$TB_SYSTEMD_CACHE"
	for f in image.ext4 vmlinuz initrd.img kernel.release systemd.version stamp; do
		# A link where the two share a file system (run.sh never writes
		# the image), a sparse copy where not.
		ln -f "$STORE/$STAMP/$f" "$TB_SYSTEMD_CACHE/$f" 2>/dev/null ||
			cp --sparse=always "$STORE/$STAMP/$f" "$TB_SYSTEMD_CACHE/$f"
	done
}
if command -v qemu-system-x86_64 >/dev/null && from_store; then
	tb_log "from the store: $STORE/$STAMP ($(cat "$TB_SYSTEMD_CACHE/systemd.version"), kernel $(cat "$TB_SYSTEMD_CACHE/kernel.release"))"
	exit 0
fi

missing=()
command -v debvm-create >/dev/null || missing+=(debvm)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
[[ -x /sbin/debugfs ]] || missing+=(e2fsprogs)
if ((${#missing[@]})); then
	tb_log "apt-get install ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$TB_SYSTEMD_CACHE"
tb_mktemp TMP
start=$(tb_now)
tb_log "debvm-create -r $SUITE (systemd, dbus-user-session, libpam-systemd, make, docker.io, apparmor, CNI plugins, tbuser)"
# No ssh key, and no NIC unless run.sh is given TB_SYSTEMD_NET: the guest
# is reached through its console and the payload disk. tbuser is there for the cases without root (issue 26),
# make for the Makefile's make run as that user. docker.io (with its
# containerd and runc) is the engine of the Docker guest (issue 50): its
# units are disabled, so that the other guests' boots start none of it;
# that guest configures it (docker/guest.sh). apparmor: the kernel has it
# on, and the engine then loads its docker-default profile with
# apparmor_parser, as on Debian's hosts (docker.io recommends it; without
# it no container starts); its own unit, which parses every profile at
# boot, is disabled too. containernetworking-plugins: the bridge a pod's
# sandbox needs on the v2 Kubernetes node (test/kube/v2.sh), whose kubelet
# and containerd run in this guest; iproute2, whose ip brings its NIC up.
# 2 GiB (sparse): the engine's 260 MB beside the system's 450 left too
# little room for images and layers.
debvm-create -r "$SUITE" -z 2G -o "$TMP/image.ext4" -- \
	--include=dbus-user-session,libpam-systemd,procps,make,docker.io,apparmor,containernetworking-plugins,iproute2 \
	"--customize-hook=upload $HERE/tb-run /usr/local/sbin/tb-run" \
	'--customize-hook=chmod 755 "$1/usr/local/sbin/tb-run"' \
	'--customize-hook=chroot "$1" useradd -m -u 1000 -U -s /bin/sh tbuser' \
	'--customize-hook=chroot "$1" systemctl disable docker.service docker.socket containerd.service apparmor.service' \
	>"$TMP/create.log" 2>&1 || {
	tail -n 30 "$TMP/create.log" >&2
	tb_die 1 "debvm-create failed"
}
tb_log "image built in $(tb_since "$start")s"

# The kernel and initrd the image's own links name (as debvm-run finds them).
link() { /sbin/debugfs "$TMP/image.ext4" -R "stat $1" 2>/dev/null | sed -n 's/^Fast link dest: "\(.*\)"/\1/p'; }
kernel=$(link /vmlinuz)
initrd=$(link /initrd.img)
[[ -n $kernel && -n $initrd ]] || tb_die 1 "no /vmlinuz or /initrd.img link in the image"
/sbin/debugfs "$TMP/image.ext4" -R "cat /$kernel" >"$TMP/vmlinuz" 2>/dev/null
/sbin/debugfs "$TMP/image.ext4" -R "cat /$initrd" >"$TMP/initrd.img" 2>/dev/null
[[ -s $TMP/vmlinuz && -s $TMP/initrd.img ]] || tb_die 1 "could not read $kernel or $initrd out of the image"
basename "$kernel" | sed 's/^vmlinuz-//' >"$TMP/kernel.release"
# awk reads to the end: an early exit left debugfs writing into a closed
# pipe, and pipefail made its SIGPIPE (141) the script's (a clean-clone CI
# run, where the image was built afresh).
/sbin/debugfs "$TMP/image.ext4" -R "cat /var/lib/dpkg/status" 2>/dev/null |
	awk '/^Package: systemd$/ { p = 1 } p && !done && /^Version:/ { print "systemd " $2; done = 1 }' >"$TMP/systemd.version"
# Read-only for everyone but root: run.sh needs no root and writes nothing.
chmod 644 "$TMP"/image.ext4 "$TMP"/vmlinuz "$TMP"/initrd.img
printf '%s\n' "$STAMP" >"$TMP/stamp"
for f in image.ext4 vmlinuz initrd.img kernel.release systemd.version stamp; do
	mv -f "$TMP/$f" "$TB_SYSTEMD_CACHE/$f"
done
# Into the store too, replacing the images of other stamps (each is
# 2 GiB sparse, about 750 MiB used).
mkdir -p "$STORE"
rm -rf "$STORE/.new" && mkdir "$STORE/.new"
for f in image.ext4 vmlinuz initrd.img kernel.release systemd.version stamp; do
	ln -f "$TB_SYSTEMD_CACHE/$f" "$STORE/.new/$f" 2>/dev/null || cp --sparse=always "$TB_SYSTEMD_CACHE/$f" "$STORE/.new/$f"
done
find "$STORE" -mindepth 1 -maxdepth 1 -type d ! -name .new -exec rm -rf {} +
mv "$STORE/.new" "$STORE/$STAMP"
tb_log "cached in $TB_SYSTEMD_CACHE: $(cat "$TB_SYSTEMD_CACHE/systemd.version"), kernel $(cat "$TB_SYSTEMD_CACHE/kernel.release"), $(du -m "$TB_SYSTEMD_CACHE/image.ext4" | cut -f1) MiB used ($(tb_since "$start")s in all)"
