#!/usr/bin/env bash
# compare.sh: pipebench against the C yardstick, same arguments, run
# alternately, and the ratio pipebench/C of their median evts/sec.
#
#   yardstick/compare.sh                  # the default table below
#   yardstick/compare.sh "-b epoll -n 10 -l 1 -writer self" ...
#
# Each configuration runs REPS times (default 3) per program for DUR
# (default 3s) each, the two programs taking turns (which goes first
# alternates too). Each run's figure is its own summary median over the
# intervals after the 1 s warm-up; the table shows the median of those.
# It takes /tmp/pipebench-measure.lock itself, so that no other measurement
# overlaps: do not wrap it in flock too. (flock -o keeps the lock's
# descriptor out of the programs: at -n 9996 their descriptor budget is
# exact.) Before each run it waits up to QUIET (default 30) seconds for a
# second in which the machine is 90% idle, since builds and tests do not
# take the lock; runs that found no such second are marked with a * and
# counted at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lock=/tmp/pipebench-measure.lock
if [[ -z ${YARDSTICK_LOCKED:-} ]]; then
	YARDSTICK_LOCKED=1 exec flock -o "$lock" "$here/compare.sh" "$@"
fi
DUR=${DUR:-3s}
REPS=${REPS:-3}
QUIET=${QUIET:-30}
cd "$here/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/pipebench" ./cmd/pipebench
gcc -O2 -std=c11 -Wall -Wextra -Werror -pthread -o "$tmp/yardstick" yardstick/c/yardstick.c

configs=("$@")
if ((${#configs[@]} == 0)); then
	for b in epoll poll; do
		for n in 10 1000; do
			for l in 1 10; do
				configs+=("-b $b -n $n -l $l -writer self")
			done
		done
	done
fi

# median_of prints the median of its arguments.
median_of() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# idle reports whether the machine was at least 90% idle over one second.
idle() {
	local a b
	read -ra a </proc/stat
	sleep 1
	read -ra b </proc/stat
	local total=0 i
	for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
	local idle=$((b[4] + b[5] - a[4] - a[5]))
	((total > 0 && 100 * idle >= 90 * total))
}

# quiet waits up to QUIET seconds for an idle second; it fails if none came.
quiet() {
	local t0=$SECONDS
	while ((SECONDS - t0 < QUIET)); do
		idle && return 0
	done
	return 1
}

# one runs a program and prints the median evts/sec of its summary, with a
# * when the machine was busy before it started.
one() {
	local out mark=""
	quiet || mark="*"
	out=$("$tmp/$1" $2 -d "$DUR") || { echo "compare.sh: $1 $2 failed" >&2; exit 1; }
	awk -v m="$mark" '$1 == "evts/sec" && $2 == "median" {print $3 m}' <<<"$out"
}

noisy=0
printf '%-36s %10s %10s %7s   %s\n' configuration pipebench C ratio "runs (pipebench | C)"
for cfg in "${configs[@]}"; do
	pb=() c=()
	for ((r = 0; r < REPS; r++)); do
		if ((r % 2 == 0)); then
			pb+=("$(one pipebench "$cfg")") c+=("$(one yardstick "$cfg")")
		else
			c+=("$(one yardstick "$cfg")") pb+=("$(one pipebench "$cfg")")
		fi
	done
	for v in "${pb[@]}" "${c[@]}"; do [[ $v != *\* ]] || noisy=$((noisy + 1)); done
	mp=$(median_of "${pb[@]%\*}") mc=$(median_of "${c[@]%\*}")
	printf '%-36s %10.0f %10.0f %7.3f   %s | %s\n' "$cfg" "$mp" "$mc" "$(awk -v a="$mp" -v b="$mc" 'BEGIN {print a/b}')" "${pb[*]}" "${c[*]}"
done
((noisy == 0)) || echo "* $noisy runs started on a busy machine (no idle second within ${QUIET}s)"
