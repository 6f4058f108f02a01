#!/bin/sh
# NSEC vs NSEC3 (RFC 9276: 0 iterations, no salt; with and without
# opt-out) for a TLD of N delegations (docs/dnssec.md, "Measured"): a zone
# of N delegations (2 NS each, one in SIGNED_EVERY with a DS record) is
# loaded and signed by knotd (ECDSA P-256, KSK + ZSK); this prints, per
# denial mode, the wall time from knotd's start to the signed zone
# answering, knotd's CPU seconds, its peak RSS (VmHWM) and the size of the
# signed zone file (knotc zone-flush).
#
#   sh bench/dnssec/nsec.sh 100000 [SIGNED_EVERY=10] [WORKERS=2]
set -eu
N=${1:-100000}
EVERY=${2:-10}
WORKERS=${3:-2}
W=$(mktemp -d /tmp/nsec-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
awk -v n="$N" -v every="$EVERY" 'BEGIN {
	print "$ORIGIN in.\n$TTL 3600"
	print "@ SOA a.nic.example.org. hostmaster.in. 1 1800 900 604800 3600"
	print "@ NS a.nic.example.org.\n@ NS b.nic.example.org."
	for (i = 0; i < n; i++) {
		printf "d%07d NS ns1.example.net.\nd%07d NS ns2.example.net.\n", i, i
		if (i % every == 0)
			printf "d%07d DS 12345 13 2 E2D3C916F6DEEAC73294E8268FB5885044A833FC5459588F4A9184CFC41A5766\n", i
	}
}' > "$W/in.unsigned"
echo "zone: $N delegations, every ${EVERY}th with DS; $(wc -l < "$W/in.unsigned") lines, $(du -h "$W/in.unsigned" | cut -f1) unsigned; background-workers $WORKERS"
printf '%-16s %10s %8s %10s %12s %10s\n' mode wall-s cpu-s rss-MiB signed-MiB records
for mode in nsec nsec3 nsec3-optout; do
	d="$W/$mode"
	mkdir -p "$d/db"
	cp "$W/in.unsigned" "$d/in.zone"
	nsec3=off; optout=off
	case $mode in nsec3) nsec3=on ;; nsec3-optout) nsec3=on; optout=on ;; esac
	port=$(( 20000 + $$ % 20000 ))
	cat > "$d/knot.conf" <<CONF
server:
    listen: 127.0.0.1@$port
    rundir: $d
    background-workers: $WORKERS
database:
    storage: $d/db
policy:
  - id: tld
    algorithm: ecdsap256sha256
    nsec3: $nsec3
    nsec3-iterations: 0
    nsec3-salt-length: 0
    nsec3-opt-out: $optout
zone:
  - domain: in
    storage: $d
    file: in.zone
    zonefile-sync: -1
    zonefile-load: whole
    journal-content: none
    dnssec-signing: on
    dnssec-policy: tld
log:
  - target: stderr
    any: warning
CONF
	t0=$(date +%s.%N)
	knotd -c "$d/knot.conf" 2>"$d/log" &
	pid=$!
	until kdig @127.0.0.1 -p $port +tcp +dnssec +short -t SOA in. 2>/dev/null | grep -q '^SOA '; do sleep 0.05; done
	t1=$(date +%s.%N)
	ticks=$(getconf CLK_TCK)
	cpu=$(awk -v t="$ticks" '{printf "%.1f", ($14+$15)/t}' /proc/$pid/stat)
	rss=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' /proc/$pid/status)
	knotc -s "$d/knot.sock" -b zone-flush in. -f +outdir "$d/out" >/dev/null 2>&1 || knotc -s "$d/knot.sock" -b zone-flush in. >/dev/null
	f=$(ls "$d"/out/* 2>/dev/null | head -1); [ -n "$f" ] || f="$d/in.zone"
	size=$(awk -v b="$(wc -c < "$f")" 'BEGIN {printf "%.1f", b/1048576}')
	recs=$(grep -vc '^;' "$f" || true)
	kill $pid; wait $pid 2>/dev/null || true
	printf '%-16s %10.1f %8s %10s %12s %10s\n' "$mode" "$(echo "$t1 - $t0" | bc)" "$cpu" "$rss" "$size" "$recs"
done
