# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A qdisc sampled over netlink (qdisc_sample.py), and its rate over a
# window of the samples.  Sourced by lib.sh; the unit tests source it
# alone.

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

# sampler_now FILE: the sampler's clock (ms) at the last sample in FILE
# (empty if it has none yet)
sampler_now() { awk '!/^#/ { t = $1 } END { print t }' "$1"; }

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

# qdisc_lost FROM_MS TO_MS [RATE] < SAMPLES: the share of the time from
# FROM_MS to TO_MS (between the first and last samples in it) that a
# decbit qdisc's link lost to late dequeues (the 6th column, lost_ns), and
# those milliseconds lost; with RATE, over the intervals qdisc_rate's
# "backlogged" counts only (they began with an interval's worth of bytes
# queued at RATE).  "nan 0" without two such samples or that column.
qdisc_lost() {
	awk -v lo="$1" -v hi="$2" -v r="${3:-}" '
		!/^#/ && $1 >= lo && $1 <= hi && NF >= 6 {
			if (n++ > 0 && (r == "" || qb * 8 >= r * ($1 - t1) / 1000)) {
				lost += $6 - l1; ms += $1 - t1
			}
			t1 = $1; l1 = $6; qb = $5
		}
		END {
			if (ms > 0) printf "%.3f %.1f\n", lost / 1e6 / ms, lost / 1e6
			else print "nan 0"
		}'
}
