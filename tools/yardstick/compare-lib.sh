# compare-lib.sh: what compare.sh and compare-experiments.sh share. Sourced,
# never run: the measurement lock, building the programs from the checkout,
# the header that says where figures were measured, the wait for an idle
# machine, medians and Go-style durations.

lock=/tmp/pipebench-measure.lock
QUIET=${QUIET:-30}
[[ $QUIET =~ ^[0-9]+$ ]] || { echo "compare.sh: QUIET=$QUIET: want a number of seconds" >&2; exit 2; }

# take_lock runs the calling script again under /tmp/pipebench-measure.lock
# with the same arguments, unless it holds the lock already (flock -o keeps
# the lock's descriptor out of the programs: at -n 9996 their descriptor
# budget is exact).
take_lock() {
	if [[ -z ${YARDSTICK_LOCKED:-} ]]; then
		YARDSTICK_LOCKED=1 exec flock -o "$lock" "$@"
	fi
}

# build_all builds pipebench and the four C programs into directory $1;
# the current directory is the checkout.
build_all() {
	go build -o "$1/pipebench" ./cmd/pipebench
	local c
	for c in yardstick minimal herd timeout; do
		local out=$1/yardstick-$c
		[[ $c == yardstick ]] && out=$1/yardstick
		gcc -O2 -std=c11 -Wall -Wextra -Werror -pthread -o "$out" "tools/yardstick/c/$c.c"
	done
}

# header prints where the figures are measured: date, kernel, CPU (its
# model name, family and model), cores,
# clock source, descriptor limit, the commit, and what the caller adds.
header() {
	local commit cpu clock
	commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	git diff --quiet HEAD 2>/dev/null || commit+="+changes"
	# The first CPU's model name, with its family and model numbers where
	# cpuinfo has them: they tell apart hosts of one model name (a VM's
	# "AMD EPYC" on two generations).
	cpu=$(awk -F'[ \t]*: *' '
		$1 == "model name" && n == "" {n = $2}
		$1 == "cpu family" && f == "" {f = $2}
		$1 == "model" && m == "" {m = $2}
		END {if (n != "" && f != "" && m != "") n = n " (family " f " model " m ")"; print n}' /proc/cpuinfo)
	clock=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC')  Linux $(uname -r)  ${cpu:-unknown CPU}  nproc $(nproc)  clock $clock  fds $(ulimit -Hn)  $*  commit $commit"
}

# dur_secs prints a Go-style duration (3s, 500ms, 1m30s) in seconds.
dur_secs() {
	awk -v d="$1" 'BEGIN {
		t = 0; s = d
		while (match(s, /^[0-9.]+(ns|us|ms|s|m|h)/)) {
			tok = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1)
			match(tok, /[a-z]+$/); u = substr(tok, RSTART); v = substr(tok, 1, RSTART - 1) + 0
			t += v * (u == "ns" ? 1e-9 : u == "us" ? 1e-6 : u == "ms" ? 1e-3 : u == "s" ? 1 : u == "m" ? 60 : 3600)
		}
		if (s != "" || t <= 0) exit 1
		print t
	}'
}

# check_tick exits with status 2 and one line, in script $1's name, unless
# TICK is 0 (no ticker) or a duration of 1us or more: the yardstick's -tick.
check_tick() {
	[[ $TICK == 0 ]] || { local s; s=$(dur_secs "$TICK") && awk -v d="$s" 'BEGIN {exit !(d >= 1e-6)}'; } ||
		{ echo "$1: TICK=$TICK: want 0 (no ticker) or a duration of 1us or more, such as 10ms" >&2; exit 2; }
}

# median_of prints the median of its arguments.
median_of() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# slower_share prints the share of the pairs (a pipebench run, a C run) in
# which the pipebench run made fewer evts/sec, a tie counting half: 1 when
# every pipebench run was slower than every C run, 0 when every one was
# faster, about 0.5 when neither program tends to be slower (the
# common-language effect size, Mann-Whitney's U over the number of pairs).
# Arguments: the pipebench runs, --, the C runs.
slower_share() {
	printf '%s\n' "$@" | awk '
		$1 == "--" { c = 1; next }
		c { y[++m] = $1; next }
		{ x[++n] = $1 }
		END {
			if (n == 0 || m == 0) exit 1
			for (i = 1; i <= n; i++)
				for (j = 1; j <= m; j++)
					u += (x[i] < y[j]) ? 1 : (x[i] == y[j]) ? 0.5 : 0
			printf "%.4f\n", u / (n * m)
		}'
}

# table_summary judges a whole table from its rows' "ratio slower" pairs
# on stdin, one row a line; $1 is the share from which a row is clearly
# slower (clearly faster: 1 - $1 or less), $2 names the first program. It
# prints the median of the rows' ratios and how many rows are clearly
# slower and clearly faster, against what chance alone gives two equally
# fast programs: each row clearly one way in 5% of tables (by the choice
# of $1), so over n rows about n/20, and more than k (the binomial
# distribution's 99th percentile) in fewer than 1% of tables. A run of
# noise puts rows below 0.95; a program slower across the table shows as
# clearly slower rows far beyond k.
# $3, when given, names the rows judged in place of "whole table".
# With summary_fields set, it prints the judgement as tab-separated fields
# instead, for a program to read: the rows' name, their count, the median
# ratio, the rows clearly slower, clearly faster, and the bound (the
# three counts "-" when the runs are too few to judge a row).
table_summary() {
	local rows med
	rows=$(cat)
	[[ -n $rows ]] || return 1
	med=$(median_of $(awk '{print $1}' <<<"$rows"))
	awk -v t="$1" -v who="$2" -v med="$med" -v what="${3:-whole table}" -v fields="${summary_fields:-}" '
		{ n++; if ($2 >= t) s++; if ($2 <= 1 - t) f++ }
		END {
			p = 0.05; pmf = (1 - p) ^ n; cdf = pmf
			for (k = 0; cdf < 0.99 && k < n; k++) { pmf *= (n - k) / (k + 1) * p / (1 - p); cdf += pmf }
			if (fields != "") {
				if (t > 1) printf "%s\t%d\t%.3f\t-\t-\t-\n", what, n, med
				else printf "%s\t%d\t%.3f\t%d\t%d\t%d\n", what, n, med, s, f, k
				exit
			}
			printf "# %s: median ratio %.3f; ", what, med
			if (t > 1) { print "no row can be clearly slower or faster with so few runs (REPS=3 or more)"; exit }
			printf "rows with %s clearly slower %d, clearly faster %d (two equally fast programs: about %.0f each way, more than %d in under 1%% of tables)\n", who, s, f, n * p, k
		}' <<<"$rows"
}

# pipebench_args prints the configuration $1 as pipebench is given it: its
# -b uring and uring-oneshot register their files and set TASKRUN_FLAG,
# and the backends that make the yardstick's plain io_uring poll calls are
# the ones with both off (uring-nofixed-notaskrunflag).
pipebench_args() {
	sed -E 's/(^| )-b (uring|uring-oneshot)( |$)/\1-b \2-nofixed-notaskrunflag\3/' <<<"$1"
}

# clear_share prints the share of slower pairs that two equally fast
# programs reach in 5% of rows, with $1 runs each: 0.5 + 1.645 standard
# deviations of U/(runs*runs), Mann-Whitney's U in its normal
# approximation (0.9188 with three runs each).
clear_share() {
	awk -v r="$1" 'BEGIN {printf "%.4f", 0.5 + 1.645 * sqrt((2 * r + 1) / (12 * r * r))}'
}

# row_kind prints the kind of a row of compare.sh's table from its
# configuration ($*): the rows whose speed the same things set, judged
# together below the whole table. One measured thread (-writer self); a
# writer thread or process on two CPUs, bounded (-l 1 or more: every token
# a wake-up across CPUs unless the scheduler put both on one) or unbounded
# (-l 0); everything confined to one CPU (taskset=).
row_kind() {
	local c=" $* "
	case $c in
	" taskset="*) echo "one CPU (taskset)" ;;
	*" -writer self "*) echo "-writer self" ;;
	*" -writer thread "* | *" -writer process "*)
		case $c in
		*" -l 0 "*) echo "-writer thread or process, -l 0" ;;
		*) echo "-writer thread or process, -l 1 or more" ;;
		esac
		;;
	*) echo "other" ;;
	esac
}

# kind_summaries judges each kind of row as table_summary judges the whole
# table, from "KIND<tab>ratio slower" lines on stdin, in the order the
# kinds first appear; $1 and $2 as table_summary's. It prints nothing when
# the rows are of one kind (the whole-table line says it all), unless $3 is
# "all". With summary_fields set, each kind's fields are named by the kind
# alone.
kind_summaries() {
	local lines kinds k n what
	lines=$(cat)
	mapfile -t kinds < <(cut -f1 <<<"$lines" | awk '!seen[$0]++')
	((${#kinds[@]} > 1)) || [[ ${3:-} == all ]] || return 0
	for k in "${kinds[@]}"; do
		n=$(awk -F'\t' -v k="$k" '$1 == k' <<<"$lines" | wc -l)
		((n == 1)) && what="$k, 1 row" || what="$k, $n rows"
		[[ -z ${summary_fields:-} ]] || what=$k # the count is a field of its own
		awk -F'\t' -v k="$k" '$1 == k {print $2}' <<<"$lines" | table_summary "$1" "$2" "$what"
	done
}

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

# took prints the time since $1, a value of SECONDS: 45s, or 3 min.
took() {
	local s=$((SECONDS - $1))
	if ((s < 90)); then echo "${s}s"; else echo "$(((s + 30) / 60)) min"; fi
}

# closing notes the runs that started on a busy machine ($noisy) and fails
# when rows failed ($failed).
closing() {
	((noisy == 0)) || echo "* $noisy runs started on a busy machine (no idle second within ${QUIET}s)"
	((failed == 0)) || { echo "compare.sh: $failed rows failed" >&2; exit 1; }
}
