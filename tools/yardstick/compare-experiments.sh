#!/usr/bin/env bash
# compare-experiments.sh: pipebench's herd and timeout experiments against
# their C counterparts (c/herd.c, c/timeout.c), same arguments, run
# alternately, side by side with the ratio pipebench/C. compare.sh hands
# `compare.sh herd ...` and `compare.sh timeout ...` to it.
#
#   tools/yardstick/compare.sh herd                          # the default herd rows
#   tools/yardstick/compare.sh herd "-waiters 64 -n 1000 -l 1" "-mode processes -waiters 8"
#   tools/yardstick/compare.sh timeout                       # the default timeout rows
#   tools/yardstick/compare.sh timeout "-samples 500 -mechanisms epoll_pwait2,ppoll -timeouts 100us"
#   tools/yardstick/compare.sh herd -list                    # the rows and the expected duration
#
# A configuration is one argument: the flags both programs get. Each runs
# REPS times (default 3) per program, the two taking turns (which goes first
# alternates too), each run after an idle second (up to QUIET seconds, as
# compare.sh; runs that found none are counted at the end). herd runs each
# EPOLLEXCLUSIVE setting for DUR (default 3s) and shows, for off and on, the
# median over the runs of evts/sec, tokens/sec, wake-ups, returns and wasted
# reads per token, the waiters' and writer's CPU per token, and the whole
# process's CPU per token (bash's time: the Go runtime's threads and the
# waiter processes included); timeout
# shows, per mechanism and timeout, the median over the runs of the p50 and
# p99 overshoot, and the sleeps a signal cut short (summed). Both programs
# print -format csv with the same columns; this script reads those.
# It takes /tmp/pipebench-measure.lock itself: do not wrap it in flock.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/compare-lib.sh"
DUR=${DUR:-3s}
REPS=${REPS:-3}

usage() {
	echo "usage: compare.sh herd|timeout [-list] [CONFIG ...]; env REPS DUR (herd) QUIET" >&2
	exit 2
}

orig=("$@")
(($# > 0)) || usage
exp=$1
shift
[[ $exp == herd || $exp == timeout ]] || usage
list=0
configs=()
for a in "$@"; do
	case $a in
	-list) list=1 ;;
	-h | -help | --help) usage ;;
	*) configs+=("$a") ;;
	esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: REPS=$REPS: want a positive integer" >&2; exit 2; }
dur=$(dur_secs "$DUR") || { echo "compare.sh: DUR=$DUR: want a duration such as 3s or 500ms" >&2; exit 2; }

if ((${#configs[@]} == 0)); then
	if [[ $exp == herd ]]; then
		configs=("-waiters 8 -n 100 -l 1" "-waiters 8 -n 100 -l 10" "-waiters 64 -n 1000 -l 1"
			"-mode processes -waiters 8 -n 100 -l 1")
	else
		configs=("-samples 200" "-samples 200 -slack 1ns")
	fi
fi

# estimate prints the expected duration: a herd run is two settings of DUR
# and about a second of setup, a timeout run about 7 s per 200 samples of
# the default points; each run waits about a second for an idle one.
estimate() {
	local secs
	if [[ $exp == herd ]]; then
		secs=$(awk -v n=${#configs[@]} -v r="$REPS" -v d="$dur" 'BEGIN {print n * r * 2 * (2 * d + 2)}')
	else
		secs=$(awk -v n=${#configs[@]} -v r="$REPS" 'BEGIN {print n * r * 2 * 8}')
	fi
	awk -v s="$secs" -v n=${#configs[@]} -v r="$REPS" 'BEGIN {
		printf "%d rows x %d runs x 2 programs: expected about %s on an idle machine\n", n, r, (s < 90) ? int(s + 0.5) "s" : int(s / 60 + 0.5) " min"
	}'
}

if ((list)); then
	printf '%s\n' "${configs[@]}"
	[[ $exp == timeout ]] && echo "# timeout rows: the estimate assumes the default mechanisms, timeouts and 200 samples"
	estimate
	exit 0
fi

take_lock "$here/compare-experiments.sh" "${orig[@]}"
cd "$here/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build_all "$tmp"
header "$exp REPS=$REPS$([[ $exp == herd ]] && echo " DUR=$DUR")"
echo "# $(estimate)"

# one runs program $1 (pipebench or C) on args, run $2, into
# runs/$1.$2 (its CSV) and runs/cpu.$1.$2 (the user and system CPU seconds
# of the whole process, its waiter processes included, as bash's time
# takes them); a run that found no idle second first is counted in noisy.
# It fails with the program's last line on stderr.
one() {
	local cmd TIMEFORMAT='%3U %3S'
	if [[ $1 == pipebench ]]; then cmd=("$tmp/pipebench" "$exp"); else cmd=("$tmp/yardstick-$exp"); fi
	[[ $exp == herd ]] && cmd+=(-d "$DUR")
	quiet || noisy=$((noisy + 1))
	if ! { time "${cmd[@]}" $args -format csv >"$tmp/runs/$1.$2" 2>"$tmp/err"; } 2>"$tmp/runs/cpu.$1.$2"; then
		echo "compare.sh: $1 $exp $args: $(tail -n 1 "$tmp/err")" >&2
		return 1
	fi
}

# herd_table prints a herd row's figures from the runs' CSV files, whose
# names start pipebench. or C.
herd_table() {
	awk -F, -v cfg="$1" -v reps="$REPS" -v dur="$DUR" '
	function med(k,   n, i, j, t, a) {
		n = cnt[k]
		for (i = 1; i <= n; i++) a[i] = val[k, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n == 0 ? "" : (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function cell(v, scale) { return v == "" ? "-" : sprintf(scale > 1 ? "%.2f" : (v >= 1000) ? "%.0f" : "%.4g", v / scale) }
	function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "n/a" : sprintf("%.3f", a / b) }
	FNR == 1 { prog = (FILENAME ~ /\/(cpu\.)?pipebench\.[^\/]*$/) ? "pipebench" : "C"; run = FILENAME; sub(/.*\./, "", run) }
	FILENAME ~ /\/cpu\.[^\/]*$/ {
		# the whole process: CPU seconds over the tokens of both settings
		split($0, t, " ")
		if (recv[prog, run] > 0) { k = prog SUBSEP "all" SUBSEP "proc"; val[k, ++cnt[k]] = (t[1] + t[2]) * 1e9 / recv[prog, run] }
		next
	}
	FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{
		recv[prog, run] += $col["received"]
		side = $col["exclusive"]
		for (c in col) { k = prog SUBSEP side SUBSEP c; val[k, ++cnt[k]] = $col[c] }
		runs[prog, side] = runs[prog, side] sprintf(" %.0f", $col["evts_per_sec_median"])
		if ($col["lost"] != 0) lost++
	}
	END {
		n = split("evts_per_sec_median tokens_per_sec wakeups_per_token returns_per_token wasted_reads_per_token sys_ns_per_token user_ns_per_token writer_sys_ns_per_token", keys, " ")
		split("evts/sec (median)|tokens/sec|wake-ups per token|returns per token|wasted reads per token|waiters sys CPU per token (us)|waiters user CPU per token (us)|writer sys CPU per token (us)", labels, "|")
		printf "## herd %s: median of %d runs each, %s per setting; ratio = pipebench / C\n", cfg, reps, dur
		printf "%-32s  %-28s  %-28s\n", "", "--- EPOLLEXCLUSIVE off ----", "--- EPOLLEXCLUSIVE on -----"
		printf "%-32s %10s %10s %6s   %10s %10s %6s\n", "figure", "pipebench", "C", "ratio", "pipebench", "C", "ratio"
		for (i = 1; i <= n; i++) {
			scale = (keys[i] ~ /_ns_/) ? 1000 : 1
			line = sprintf("%-32s", labels[i])
			for (s = 0; s < 2; s++) {
				side = s ? "on" : "off"
				a = med("pipebench" SUBSEP side SUBSEP keys[i]); b = med("C" SUBSEP side SUBSEP keys[i])
				line = line sprintf(" %10s %10s %6s%s", cell(a, scale), cell(b, scale), ratio(a, b), s ? "" : "  ")
			}
			print line
		}
		a = med("pipebench" SUBSEP "all" SUBSEP "proc"); b = med("C" SUBSEP "all" SUBSEP "proc")
		printf "%-32s %10s %10s %6s   (all its threads and processes, setup included, over both settings)\n", "process CPU per token (us)", cell(a, 1000), cell(b, 1000), ratio(a, b)
		for (p = 0; p < 2; p++) {
			prog = p ? "C" : "pipebench"
			off = med(prog SUBSEP "off" SUBSEP "evts_per_sec_median"); on = med(prog SUBSEP "on" SUBSEP "evts_per_sec_median")
			printf "%-32s %10s   (evts/sec of each run: off%s, on%s)\n", "evts/sec off/on, " prog, ratio(off, on), runs[prog, "off"], runs[prog, "on"]
		}
		if (lost) printf "!! %d settings lost tokens\n", lost
	}' "$tmp"/runs/pipebench.* "$tmp"/runs/C.* "$tmp"/runs/cpu.*
}

# timeout_table prints a timeout row's figures from the runs' CSV files.
timeout_table() {
	awk -F, -v cfg="$1" -v reps="$REPS" '
	function med(k,   n, i, j, t, a) {
		n = cnt[k]
		for (i = 1; i <= n; i++) a[i] = val[k, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n == 0 ? "" : (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function us(v) { return v == "" ? "-" : sprintf("%.1f", v / 1000) }
	function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "n/a" : sprintf("%.3f", a / b) }
	function dur(ns) { return ns < 1e6 ? (ns / 1e3) "us" : ns < 1e9 ? (ns / 1e6) "ms" : (ns / 1e9) "s" }
	FNR == 1 { prog = (FILENAME ~ /\/pipebench\.[^\/]*$/) ? "pipebench" : "C"; for (i = 1; i <= NF; i++) col[$i] = i; next }
	{
		pt = $col["mechanism"] SUBSEP $col["requested_ns"]
		if (!(pt in seen)) { seen[pt] = 1; order[++npts] = pt }
		for (c in col) { k = prog SUBSEP pt SUBSEP c; val[k, ++cnt[k]] = $col[c] }
		cut[prog, pt] += $col["interrupted"]
		slack[prog] = $col["timer_slack_ns"]
	}
	END {
		printf "## timeout %s: median of %d runs each, overshoot in us; ratio = pipebench / C; timer slack %s (pipebench) %s (C)\n", cfg, reps, dur(slack["pipebench"]), dur(slack["C"])
		printf "%-14s %9s   %-26s   %-26s   %s\n", "", "", "---------- p50 ----------", "---------- p99 ----------", "-- EINTR --"
		printf "%-14s %9s   %9s %9s %6s   %9s %9s %6s   %6s %6s\n", "mechanism", "requested", "pipebench", "C", "ratio", "pipebench", "C", "ratio", "pb", "C"
		for (i = 1; i <= npts; i++) {
			pt = order[i]; split(pt, f, SUBSEP)
			a50 = med("pipebench" SUBSEP pt SUBSEP "p50_ns"); b50 = med("C" SUBSEP pt SUBSEP "p50_ns")
			a99 = med("pipebench" SUBSEP pt SUBSEP "p99_ns"); b99 = med("C" SUBSEP pt SUBSEP "p99_ns")
			printf "%-14s %9s   %9s %9s %6s   %9s %9s %6s   %6d %6d\n", f[1], dur(f[2]), us(a50), us(b50), ratio(a50, b50), us(a99), us(b99), ratio(a99, b99), cut["pipebench", pt], cut["C", pt]
		}
	}' "$tmp"/runs/pipebench.* "$tmp"/runs/C.*
}

noisy=0 failed=0
t_start=$SECONDS
for args in "${configs[@]}"; do
	rm -rf "$tmp/runs"
	mkdir "$tmp/runs"
	ok=1
	for ((r = 0; r < REPS; r++)); do
		if ((r % 2 == 0)); then order=(pipebench C); else order=(C pipebench); fi
		for prog in "${order[@]}"; do
			one "$prog" "$r" || ok=0
		done
	done
	if ((ok == 0)); then
		failed=$((failed + 1))
		echo "## $exp $args: failed (see above)"
		continue
	fi
	"${exp}_table" "$args"
	echo
done
echo "# ${#configs[@]} rows in $(took $t_start)"
closing
