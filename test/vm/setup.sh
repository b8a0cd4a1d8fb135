#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Prepare everything test/vm/run.sh needs to boot a cgroup v2 guest.
#
# Usage: sudo bash test/vm/setup.sh        (from any working directory)
#
# Idempotent. Only what is missing is fetched:
#   * host packages (apt): qemu-system-x86 (no recommends), cpio
#   * $TB_VM_CACHE/vmlinuz    Debian's linux-image-amd64 kernel (the real
#                             versioned linux-image-*-amd64 package behind the
#                             meta package), plus config and version files
#   * $TB_VM_CACHE/busybox    static busybox from the busybox-static .deb
#   * $TB_VM_CACHE/accel.<boot_id>  result of the KVM probe (see lib.sh)
# A second run with a filled cache does no network access at all.
#
# No kernel modules are extracted: the guest needs none. Debian's amd64 kernel
# has the 8250 serial console, initramfs support, devtmpfs, tmpfs, cgroups
# (cpu with CFS bandwidth, cpuset) and the CMOS RTC built in (=y), and the
# guest gets its files from the initramfs alone (no disk, no virtio, no 9p).
# The kernel config is checked for that below, so a future kernel that moves
# one of them to a module fails here loudly instead of in the guest.
#
# Environment:
#   TB_VM_CACHE       cache dir (default: <repo>/.cache/vm)
#   TB_VM_KERNEL_PKG  pin a kernel package, e.g. linux-image-6.1.0-56-amd64
#                     (default: whatever TB_VM_KERNEL_META depends on)
#   TB_VM_KERNEL_META the meta package followed (default linux-image-amd64,
#                     bookworm's 6.1; linux-image-6.12-amd64 is the 6.12
#                     that bookworm's security archive ships beside it).
#                     A cache holds one kernel: give each its TB_VM_CACHE.
#   TB_VM_ACCEL       auto|kvm|tcg, as for run.sh (auto probes KVM once)
# To refresh the kernel/busybox, delete the cache dir and run again.
set -euo pipefail

# shellcheck disable=SC2034 # read by lib.sh (message prefix)
TB_PROG=setup.sh
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tb_install_traps

# Kernel options that must be built in (=y) since the guest loads no modules.
REQUIRED_KCONFIG=(
	CONFIG_BLK_DEV_INITRD  # boot from the initramfs
	CONFIG_BINFMT_ELF      # run busybox / Go static binaries
	CONFIG_BINFMT_SCRIPT   # run #! scripts (/init)
	CONFIG_SERIAL_8250     # ttyS0 ...
	CONFIG_SERIAL_8250_CONSOLE # ... as the console
	CONFIG_DEVTMPFS        # /dev
	CONFIG_TMPFS           # /tmp, /dev/shm
	CONFIG_PROC_FS
	CONFIG_SYSFS
	CONFIG_CGROUPS         # cgroup2 ...
	CONFIG_CGROUP_SCHED    # ... cpu controller
	CONFIG_FAIR_GROUP_SCHED
	CONFIG_CFS_BANDWIDTH   # cpu.max / cpu.max.burst
	CONFIG_CPUSETS         # cpuset controller
	CONFIG_RTC_DRV_CMOS    # wall clock from the (emulated) RTC
	CONFIG_RTC_HCTOSYS
	CONFIG_UNIX
	CONFIG_INET            # lo / 127.0.0.1
	CONFIG_ACPI            # poweroff -f actually powers qemu off
)

APT_UPDATED=0
apt_update_once() {
	if [[ $APT_UPDATED == 0 ]]; then
		tb_log "apt-get update"
		apt-get update -qq
		APT_UPDATED=1
	fi
}

need_root() {
	[[ $(id -u) == 0 ]] || tb_die 1 "must run as root to $* (apt)"
}

# apt-get download as root would warn that the _apt sandbox user cannot write
# to the target dir; downloading as root into our own temp dir is fine.
apt_download() {
	apt-get -q -o APT::Sandbox::User=root download "$@"
}

# --- 1. host packages -------------------------------------------------------
ensure_host_packages() {
	local missing=()
	command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
	command -v cpio >/dev/null || missing+=(cpio)
	# dpkg-deb (dpkg) and tail --pid (coreutils) are Essential on Debian.
	if ((${#missing[@]})); then
		need_root "install ${missing[*]}"
		apt_update_once
		tb_log "installing: ${missing[*]}"
		# No recommends: we need neither the GUI, OVMF nor block extras.
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
	fi
}

# --- 2. kernel ---------------------------------------------------------------
ensure_kernel() {
	if [[ -s $TB_VM_CACHE/vmlinuz && -s $TB_VM_CACHE/kernel.release ]]; then
		return 0
	fi
	need_root "download the kernel"
	apt_update_once
	local tmp pkg ver deps
	tb_mktemp tmp
	if [[ -n ${TB_VM_KERNEL_PKG:-} ]]; then
		pkg=$TB_VM_KERNEL_PKG
		(cd "$tmp" && apt_download "$pkg")
	else
		# The meta package only depends on the real, versioned image package:
		#   Depends: linux-image-6.1.0-56-amd64 (= 6.1.192-2)
		#   Depends: linux-image-6.12.117+deb12-amd64 (= 6.12.117-1~deb12u1)
		local meta=${TB_VM_KERNEL_META:-linux-image-amd64}
		(cd "$tmp" && apt_download "$meta")
		deps=$(dpkg-deb -f "$tmp"/"$meta"_*.deb Depends)
		pkg=${deps%%[ ,]*}
		ver=$(sed -n 's/^[^ ,]* (= \([^)]*\)).*$/\1/p' <<<"$deps")
		[[ $pkg == linux-image-*-amd64 ]] ||
			tb_die 1 "cannot parse $meta Depends: '$deps'"
		(cd "$tmp" && apt_download "$pkg${ver:+=$ver}")
	fi
	local deb
	deb=$(ls "$tmp"/"$pkg"_*.deb)
	# Only /boot is needed (vmlinuz + config): no modules, see header.
	mkdir -p "$tmp/x"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" --wildcards './boot/vmlinuz-*' './boot/config-*'
	local vmlinuz config release
	vmlinuz=$(ls "$tmp"/x/boot/vmlinuz-*)
	config=$(ls "$tmp"/x/boot/config-*)
	release=${vmlinuz##*/vmlinuz-}
	check_kconfig "$config"
	# bzImage sanity: "HdrS" at offset 0x202.
	[[ $(dd if="$vmlinuz" bs=1 skip=514 count=4 status=none) == HdrS ]] ||
		tb_die 1 "$vmlinuz does not look like a bzImage"
	mkdir -p "$TB_VM_CACHE"
	cp "$config" "$TB_VM_CACHE/kernel.config"
	printf '%s %s\n' "$pkg" "$(dpkg-deb -f "$deb" Version)" >"$TB_VM_CACHE/kernel.package"
	# vmlinuz and kernel.release last, via rename: their presence means done.
	cp "$vmlinuz" "$TB_VM_CACHE/vmlinuz.tmp.$$"
	mv -f "$TB_VM_CACHE/vmlinuz.tmp.$$" "$TB_VM_CACHE/vmlinuz"
	printf '%s\n' "$release" >"$TB_VM_CACHE/kernel.release"
	rm -rf -- "$tmp"
	tb_log "kernel: $release ($(cat "$TB_VM_CACHE/kernel.package"))"
}

check_kconfig() {
	local config=$1 opt bad=()
	for opt in "${REQUIRED_KCONFIG[@]}"; do
		grep -qx "$opt=y" "$config" || bad+=("$opt")
	done
	((${#bad[@]} == 0)) ||
		tb_die 1 "kernel config lacks built-in (=y): ${bad[*]}; the guest loads no modules"
}

# --- 3. static busybox -------------------------------------------------------
# Taken from the busybox-static .deb rather than by installing it: installing
# busybox-static would make apt remove the host's dynamic "busybox" package
# (they conflict), which initramfs-tools on a normal Debian host relies on.
# If busybox-static is already installed, its /bin/busybox is simply copied.
ensure_busybox() {
	if [[ -x $TB_VM_CACHE/busybox ]]; then
		return 0
	fi
	local tmp src
	tb_mktemp tmp
	if [[ $(dpkg-query -W -f='${Status}' busybox-static 2>/dev/null || true) == "install ok installed" ]]; then
		src=/bin/busybox
	else
		need_root "download busybox-static"
		apt_update_once
		(cd "$tmp" && apt_download busybox-static)
		dpkg-deb --fsys-tarfile "$tmp"/busybox-static_*.deb | tar -x -C "$tmp" ./bin/busybox
		src=$tmp/bin/busybox
	fi
	# The guest has no libc: the binary must be static (ldd fails on those).
	if ldd "$src" >/dev/null 2>&1; then
		tb_die 1 "$src is dynamically linked; need busybox-static"
	fi
	mkdir -p "$TB_VM_CACHE"
	cp "$src" "$TB_VM_CACHE/busybox.tmp.$$"
	chmod 755 "$TB_VM_CACHE/busybox.tmp.$$"
	mv -f "$TB_VM_CACHE/busybox.tmp.$$" "$TB_VM_CACHE/busybox"
	rm -rf -- "$tmp"
	tb_log "busybox: $("$TB_VM_CACHE/busybox" | head -1)"
}

main() {
	mkdir -p "$TB_VM_CACHE"
	# Serialize concurrent setups sharing one cache (flock is util-linux,
	# Essential on Debian). fd 9 stays open, so the lock lasts until exit.
	exec 9>"$TB_VM_CACHE/.setup.lock"
	flock 9
	ensure_host_packages
	ensure_kernel
	ensure_busybox
	tb_accel
	tb_log "ready: cache=$TB_VM_CACHE kernel=$(cat "$TB_VM_CACHE/kernel.release") accel=$TB_ACCEL"
}

main "$@"
