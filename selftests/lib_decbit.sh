# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The decbit selftests' helpers (sourced after lib.sh): the bottleneck
# measured over netlink, tcp_decbit's count of Reno fallbacks, and
# differences and sums of counters that are "null" unless every counter
# was read (a missing counter never reads as 0).

# flow_window FILE SKIP_MS LEN_MS RATE: the bottleneck over a window of
# the traffic's own time, from a qdisc_sampler FILE started before the
# traffic: SKIP_MS after the first sample with 100 kB sent (data, not a
# handshake), for LEN_MS.  Prints qdisc_rate's "<utilisation> <mean queue> <samples>",
# then the window's start in the sampler's time ("-" if the traffic never
# came) and 1 if samples reach its end (else 0).  (A window timed from
# the call instead began seconds late in a slow guest: processes take
# seconds to start there, and it overran the flows it measured.)
flow_window() {
	local from to covered=0
	from=$(awk -v s="$2" '!/^#/ { if (n++ == 0) b0 = $2; else if ($2 - b0 > 100000) { print $1 + s; exit } }' "$1")
	to=$((${from:-0} + $3))
	[ -n "$from" ] && awk -v t="$to" '!/^#/ && $1 >= t { f = 1 } END { exit !f }' "$1" && covered=1
	echo "$(qdisc_rate "$4" "${from:-0}" "$to" <"$1") ${from:--} $covered"
}

# qdisc_sampler NS DEV SECONDS FILE [MS]: qdisc_sample.py every MS (20) ms
# into FILE in the background (its pid in $sampler_pid), returning once it
# samples: under load a Python process takes seconds to start, and a
# sampler that began after the traffic had ended once read an empty queue
qdisc_sampler() {
	"$SELFTESTS_DIR/qdisc_sample.py" "$1" "$2" "$3" "${5:-20}" >"$4" &
	# shellcheck disable=SC2034 # (read by the caller)
	sampler_pid=$!
	busywait 15000 grep -q '^# ready' "$4"
}

# qdisc_rate RATE [FROM_MS TO_MS [backlogged]] < SAMPLES: the same figures
# from qdisc_sample.py's lines, those from FROM_MS to TO_MS only if given.
# With "backlogged", two more: the bytes sent per second over RATE in the
# sample intervals that began with at least an interval's worth of bytes
# queued (the qdisc's backlog, so GRO's super-packets count at their
# size: the link had work throughout, whatever the sender did meanwhile),
# and the milliseconds those intervals cover
qdisc_rate() {
	awk -v r="$1" -v lo="${2:-0}" -v hi="${3:-1e18}" -v bl="${4:-}" '
		!/^#/ && $1 >= lo && $1 <= hi {
			if (n++ == 0) { t0 = $1; b0 = $2 }
			else if (qb * 8 >= r * ($1 - t1) / 1000) { bb += $2 - b1; ms += $1 - t1 }
			t1 = $1; b1 = $2; qb = $5; qs += $3
		}
		END {
			if (n > 1 && t1 > t0) printf "%.3f %.2f %d", (b1 - b0) * 8 / ((t1 - t0) / 1000) / r, qs / n, n
			else printf "nan nan 0"
			if (bl == "backlogged") printf(ms > 0 ? " %.3f %d" : " nan 0", bb * 8 / ((ms + !ms) / 1000) / r, ms)
			print ""
		}'
}

# rate_held RATIO MS: qdisc_rate's figure while backlogged within 0.95-1.02
# of the rate (the target: the link busy 95 % of the time it has work),
# over at least 1 s of backlogged intervals
rate_held() { [ "$2" -ge 1000 ] && between "$1" 0.95 1.02; }

# decbit_fallbacks: tcp_decbit's count of connections that fell back to
# Reno (no ECN negotiated)
decbit_fallbacks() { cat /sys/module/tcp_decbit/parameters/reno_fallbacks; }

# count_diff A B: B - A for two counts, "null" unless both are integers
count_diff() {
	[[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] && echo $(($2 - $1)) || echo null
}
# count_sum A B: A + B for two counts, "null" unless both are integers
count_sum() {
	[[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] && echo $(($1 + $2)) || echo null
}
