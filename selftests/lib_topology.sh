#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The lib.sh topologies themselves: a dumbbell and a chain of routers carry
# traffic end to end with offloads off, and every namespace is gone after
# cleanup.

. "$(dirname "$0")/lib.sh"

require_cmd ethtool ping

ktap_header 5

dumbbell 2
ping2() { ip netns exec "$1" ping -c 2 -W 2 -q "$2" >/dev/null; }
check "dumbbell_s1_to_d" ping2 "$S1" 10.9.0.2
check "dumbbell_s2_to_d" ping2 "$S2" 10.9.0.2
check "veth_offloads_off" sh -c "ip netns exec $R1 ethtool -k rb0 | grep -q 'tcp-segmentation-offload: off' &&
	ip netns exec $R1 ethtool -k rb0 | grep -q 'generic-receive-offload: off'"
cleanup

chain 3
check "chain3_h0_to_h1" ping2 "$H0" 10.3.0.2
cleanup
check "namespaces_cleaned_up" test -z "$(ip netns list)"

ktap_finish
