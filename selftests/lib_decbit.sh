# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The decbit selftests' helpers (sourced after lib.sh): windows of the
# bottleneck's samples (lib.sh's qdisc_sampler), tcp_decbit's count of
# Reno fallbacks, and
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
