#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-packet cost of sch_decbit: small-packet forwarding rate through a
# router namespace with "decbit" as the root qdisc of its egress, against
# "pfifo", alternated ROUNDS times in the same boot.  Run it in the VM:
#
#   tools/vm 6.12 -- tools/bench/decbit_pps.sh [ROUNDS] [SECONDS]
#
# Writes results/bench/decbit_pps-<kernel>.json and prints a table.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib.sh"
rounds=${1:-3}
secs=${2:-5}
krel=$(uname -r)
out=$top/results/bench
mkdir -p "$out"

grep -q '^sch_decbit ' /proc/modules || insmod "$top/build/$krel/sch_decbit/sch_decbit.ko" || exit 1
dumbbell 1 >/dev/null || exit 1
ip netns exec "$D" iperf3 -s -p 5202 >/dev/null 2>&1 &
PIDS+=($!)
busywait 5000 ip netns exec "$D" sh -c 'ss -lun | grep -q ":5202 " || ss -ltn | grep -q ":5202 "'

run() {	# run QDISC ARGS...: forwarded packets per second through r1
	ip netns exec "$R1" tc qdisc del dev rb0 root 2>/dev/null
	ip netns exec "$R1" tc qdisc add dev rb0 root "$@"
	ip netns exec "$S1" iperf3 -c 10.9.0.2 -p 5202 -u -b 0 -l 64 -t "$secs" >/dev/null 2>&1
	local p
	p=$(qdisc_stat "$R1" rb0 packets)
	echo $((p / secs))
}

declare -a dec fifo
for i in $(seq 1 "$rounds"); do
	fifo+=("$(run pfifo limit 1000)")
	dec+=("$(run decbit limit 1000)")
	echo "# round $i: pfifo ${fifo[-1]} pps, decbit ${dec[-1]} pps" >&2
done
cleanup
trap - EXIT

python3 - "$out/decbit_pps-$krel.json" "$krel" "${fifo[*]}" "${dec[*]}" <<'PY'
import json, statistics, sys
path, krel, fifo, dec = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
fifo = [int(x) for x in fifo]; dec = [int(x) for x in dec]
r = {"kernel": krel, "pfifo_pps": fifo, "decbit_pps": dec,
     "pfifo_median": statistics.median(fifo), "decbit_median": statistics.median(dec)}
r["ratio"] = round(r["decbit_median"] / r["pfifo_median"], 3)
json.dump(r, open(path, "w"), indent=1)
print(f"| kernel | pfifo pps (median) | decbit pps (median) | decbit/pfifo |")
print(f"|---|---|---|---|")
print(f"| {krel} | {r['pfifo_median']:.0f} | {r['decbit_median']:.0f} | {r['ratio']:.3f} |")
PY
