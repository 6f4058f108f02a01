#!/usr/bin/env bash
# Checks deploy/akshara.service with systemd-analyze verify where it
# exists (.ci/run runs it). verify wants the ExecStart binary and the
# environment file to exist, so the unit is checked as a copy that points
# at a freshly built binary and at deploy/akshara.env. Any message about
# the unit (an unknown key is only a warning to systemd) fails the check.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v systemd-analyze >/dev/null; then
	echo "systemd-analyze not found: akshara.service not verified"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/akshara" ../cmd/akshara
sed -e "s|/usr/local/bin/akshara|$tmp/akshara|" \
    -e "s|EnvironmentFile=/etc/akshara/akshara.env|EnvironmentFile=$PWD/akshara.env|" \
    akshara.service >"$tmp/akshara.service"
status=0
out=$(systemd-analyze verify "$tmp/akshara.service" 2>&1) || status=$?
out=$(grep -F "akshara.service" <<<"$out" || true)
if [ "$status" -ne 0 ] || [ -n "$out" ]; then
	echo "systemd-analyze verify akshara.service (exit $status):"
	echo "$out"
	exit 1
fi
echo "akshara.service: verified by systemd-analyze"
