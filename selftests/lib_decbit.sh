# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The decbit selftests' helpers (sourced after lib.sh): the bottleneck
# measured over netlink, and tcp_decbit's count of Reno fallbacks.

# qdisc_measure NS DEV SECONDS RATE: sample the root qdisc over netlink
# every 20 ms for SECONDS, from one process (forking tc per sample loads a
# TCG guest enough to cost paced flows a tenth of the link), and print
# "<bytes sent per second over RATE bit/s> <mean queue, packets> <samples>"
qdisc_measure() {
	"$SELFTESTS_DIR/qdisc_sample.py" "$1" "$2" "$3" 20 | qdisc_rate "$4"
}

# qdisc_rate RATE [FROM_MS TO_MS] < SAMPLES: the same figures from
# qdisc_sample.py's lines, those from FROM_MS to TO_MS only if given
qdisc_rate() {
	awk -v r="$1" -v lo="${2:-0}" -v hi="${3:-1e18}" \
		'!/^#/ && $1 >= lo && $1 <= hi { n++; if (n == 1) { t0 = $1; b0 = $2 }
			t1 = $1; b1 = $2; q += $3 }
		END { if (n > 1 && t1 > t0) printf "%.3f %.2f %d\n", (b1 - b0) * 8 / ((t1 - t0) / 1000) / r, q / n, n
		      else print "nan nan 0" }'
}

# qdisc_rate_backlogged RATE PKT_BYTES [FROM_MS TO_MS] < SAMPLES: the
# bytes sent per second over RATE bit/s in the sample intervals that began
# with at least an interval's worth of packets of PKT_BYTES queued (the
# link had work throughout, whatever the sender did meanwhile), and the
# milliseconds those intervals cover: "<rate ratio> <ms>"
qdisc_rate_backlogged() {
	awk -v r="$1" -v pkt="$2" -v lo="${3:-0}" -v hi="${4:-1e18}" '
		!/^#/ && $1 >= lo && $1 <= hi {
			if (n++ && q * pkt * 8 >= r * ($1 - t) / 1000) {
				b += $2 - b1; ms += $1 - t
			}
			t = $1; b1 = $2; q = $3
		}
		END { if (ms > 0) printf "%.3f %d\n", b * 8 / (ms / 1000) / r, ms
		      else print "nan 0" }'
}

# decbit_fallbacks: tcp_decbit's count of connections that fell back to
# Reno (no ECN negotiated)
decbit_fallbacks() { cat /sys/module/tcp_decbit/parameters/reno_fallbacks; }
