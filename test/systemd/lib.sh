# shellcheck shell=bash
# Shared by test/systemd/setup.sh and run.sh (after test/vm/lib.sh, whose
# process and temp-dir helpers they use). Sourced, never run.
TB_SYSTEMD_CACHE=${TB_SYSTEMD_CACHE:-$TB_REPO/.cache/systemd}
case $TB_SYSTEMD_CACHE in
/*) ;;
*) TB_SYSTEMD_CACHE=$PWD/$TB_SYSTEMD_CACHE ;;
esac

tb_systemd_cached() {
	local f
	for f in image.ext4 vmlinuz initrd.img kernel.release systemd.version stamp; do
		[[ -s $TB_SYSTEMD_CACHE/$f ]] || return 1
	done
}
