#!/usr/bin/env bash
# weigh.sh — what each dependency adds to bin/throttlebench, so that a change
# in size (test/docker's TestImageSize alarms above a 40 MiB ceiling) is
# explained by numbers instead of guesses.
#
#   test/docker/weigh.sh            # build an unstripped copy, print per-module weights
#   test/docker/weigh.sh -p         # per package instead of per module
#   test/docker/weigh.sh BINARY     # weigh a binary built elsewhere (with symbols)
#
# How: `go tool nm -size` lists every symbol with its size; each one is put in
# the ELF section its address falls in (readelf -S), so code (.text), read-only
# data (.rodata: strings, tables) and initialised data (.noptrdata/.data:
# embedded fonts end up here, as []byte literals) are told apart, and zero-filled
# memory (.bss, .noptrbss: costs RAM, not file bytes) is left out. The package
# comes from the symbol's name, the module from `go version -m` of the binary.
# Not attributed: most of .rodata (type descriptors and strings, merged into
# unnamed symbols) and .gopclntab (line and stack tables, roughly 0.75 bytes
# per byte of code, so cutting code saves more than its text column says);
# the section sizes are printed below the table. Symbols the linker shares or
# makes up are printed as "(shared)".
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

by=module
if [[ ${1:-} == -p ]]; then by=package; shift; fi
bin=${1:-}
if [[ -z $bin ]]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	bin=$tmp/throttlebench
	# The release build's flags, minus -s -w: the symbols are what we weigh.
	(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/throttlebench)
	(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/stripped" ./cmd/throttlebench)
	echo "bin/throttlebench as built by make build: $(stat -c %s "$tmp/stripped") bytes"
fi

{
	# Section address ranges: "S name start end".
	readelf -SW "$bin" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '
	function hex(h,    i, v) { v = 0; h = tolower(h); for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
	$1 ~ /^\./ {
		start = hex($3); size = hex($5)
		if (start > 0) print "S", $1, start, start + size }'
	# Modules: "M path"; the main module too.
	go version -m "$bin" | awk '$1 == "mod" || $1 == "dep" { print "M", $2 }'
	go tool nm -size "$bin" | awk 'NF >= 4 { print "Y", $1, $2, $4 }'
} | awk -v by="$by" '
# mawk (Debian'"'"'s awk) has no strtonum.
function hex(h,    i, v) { v = 0; h = tolower(h); for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
function pkgof(name,    s, i, slash, rest) {
	s = name
	sub(/^type:\*?/, "", s)
	# An itab belongs to its concrete type: go:itab.*pkg.T,iface.
	if (sub(/^go:itab\.\*?/, "", s)) sub(/,.*/, "", s)
	sub(/^\.eq\.(\[[0-9]+\])?/, "", s)
	if (s ~ /^go:/ || s ~ /^[^a-zA-Z]/) return "(shared)"
	i = index(s, "["); if (i > 0) s = substr(s, 1, i - 1)
	slash = 0
	for (i = length(s); i > 0; i--) if (substr(s, i, 1) == "/") { slash = i; break }
	rest = substr(s, slash + 1)
	i = index(rest, "."); if (i > 0) rest = substr(rest, 1, i - 1)
	return substr(s, 1, slash) rest
}
function modof(pkg,    m, best) {
	if (pkg ~ /^\(/) return pkg
	best = ""
	for (m in mods) if ((pkg == m || index(pkg, m "/") == 1) && length(m) > length(best)) best = m
	if (best != "") return best
	if (pkg !~ /^[^\/]*\./) return "std"
	return pkg
}
$1 == "S" { sn++; sname[sn] = $2; sstart[sn] = $3; send[sn] = $4; next }
$1 == "M" { mods[$2] = 1; next }
$1 == "Y" {
	addr = hex($2); size = $3; sec = ""
	for (k = 1; k <= sn; k++) if (addr >= sstart[k] && addr < send[k]) { sec = sname[k]; break }
	# Zero-filled memory is not in the file; .gopclntab is printed whole below.
	if (sec == ".bss" || sec == ".noptrbss" || sec == ".gopclntab" || sec == "") next
	col = (sec == ".text") ? "text" : (sec == ".rodata" || sec == ".typelink" || sec == ".itablink") ? "rodata" : "data"
	p = pkgof($4); key = (by == "package") ? p : modof(p)
	w[key, col] += size; tot[key] += size; all[col] += size
	next
}
END {
	printf "%-48s %10s %10s %10s %10s\n", by, "text", "rodata", "data", "total"
	n = 0
	for (k in tot) keys[++n] = k
	# Heaviest first (insertion sort: a few hundred keys at most).
	for (i = 2; i <= n; i++) { v = keys[i]; for (j = i - 1; j > 0 && tot[keys[j]] < tot[v]; j--) keys[j + 1] = keys[j]; keys[j + 1] = v }
	for (i = 1; i <= n; i++) {
		k = keys[i]
		if (by == "package" && tot[k] < 20000) continue
		printf "%-48s %10d %10d %10d %10d\n", k, w[k, "text"], w[k, "rodata"], w[k, "data"], tot[k]
	}
	printf "%-48s %10d %10d %10d %10d\n", "(all symbols)", all["text"], all["rodata"], all["data"], all["text"] + all["rodata"] + all["data"]
	# The sections whole: type descriptors and strings are merged into
	# unnamed symbols (rodata), and pclntab is per function, unnamed.
	for (k = 1; k <= sn; k++) if (sname[k] ~ /^\.(text|rodata|gopclntab|noptrdata|data|typelink|itablink)$/)
		printf "section %-40s %43d\n", sname[k], send[k] - sstart[k]
}'
