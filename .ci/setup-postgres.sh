#!/usr/bin/env bash
# Makes a PostgreSQL cluster answer on 127.0.0.1 with trust authentication
# for loopback connections and a database of the given name, on a Debian
# machine as root: it installs the server when it is missing, creates the
# cluster when none of that name exists, starts it when it is down, and
# creates the database when it is absent. Running it again changes nothing.
#
#   bash .ci/setup-postgres.sh [CLUSTER [PORT [DATABASE]]]
#
# Defaults: cluster "main", port 5432, database "test" (the DSN .ci/run
# gives the tests: postgres://postgres@127.0.0.1:5432/test?sslmode=disable).
# A second cluster (for example a streaming standby) is another call with
# another name and port; the functions below are the pieces to extend.
# Only a CI or development machine should run this: it makes loopback
# connections to the cluster trusted (no password).
set -euo pipefail

name=${1:-main}
port=${2:-5432}
db=${3:-test}

say() { echo "== setup-postgres: $*"; }
die() { echo "setup-postgres: $*" >&2; exit 1; }

# ensure_server installs Debian's PostgreSQL server when it is missing.
ensure_server() {
	if command -v pg_createcluster >/dev/null && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
		return
	fi
	[ "$(id -u)" = 0 ] || die "the PostgreSQL server is not installed and this is not root: apt-get install postgresql"
	say "installing postgresql"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
}

# version: the newest installed server version (15 on Debian 12).
version() {
	ls /usr/lib/postgresql | sort -n | tail -1
}

# ensure_cluster NAME PORT: the cluster exists and is running on PORT.
ensure_cluster() {
	local v; v=$(version)
	if [ ! -d "/etc/postgresql/$v/$1" ]; then
		say "creating cluster $v/$1 on port $2"
		pg_createcluster "$v" "$1" --port "$2" >/dev/null
	fi
	local have; have=$(awk -F= '/^[[:space:]]*port[[:space:]]*=/ {gsub(/[^0-9]/, "", $2); print $2}' "/etc/postgresql/$v/$1/postgresql.conf" | tail -1)
	[ "$have" = "$2" ] || die "cluster $v/$1 is configured for port ${have:-?}, not $2"
	ensure_trust "$v" "$1" "$2"
	if ! pg_isready -q -h 127.0.0.1 -p "$2"; then
		say "starting cluster $v/$1"
		pg_ctlcluster --skip-systemctl-redirect "$v" "$1" start
	fi
	local i
	for i in $(seq 1 30); do
		pg_isready -q -h 127.0.0.1 -p "$2" && return
		sleep 1
	done
	die "cluster $v/$1 does not answer on 127.0.0.1:$2 (log: /var/log/postgresql/postgresql-$v-$1.log)"
}

# ensure_trust VERSION NAME PORT: loopback TCP connections are trusted (Debian's
# default asks for a password, which the tests' DSN does not carry). The
# lines go first, since the first matching line of pg_hba.conf applies.
ensure_trust() {
	local hba="/etc/postgresql/$1/$2/pg_hba.conf"
	if grep -Eq '^host[[:space:]]+all[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba" &&
		[ "$(grep -Ev '^[[:space:]]*(#|$)' "$hba" | grep -E '^host' | head -1 | awk '{print $4, $5}')" = "127.0.0.1/32 trust" ]; then
		return
	fi
	say "trusting loopback connections in $hba"
	sed -i '1i # akshara .ci/setup-postgres.sh: loopback connections are trusted (CI and development only)\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
	if pg_isready -q -h 127.0.0.1 -p "$3"; then
		pg_ctlcluster --skip-systemctl-redirect "$1" "$2" reload
	fi
}

# ensure_db PORT DB: the database exists (owned by the postgres role).
ensure_db() {
	local q="SELECT 1 FROM pg_database WHERE datname = '$2'"
	if [ "$(psql -X -h 127.0.0.1 -p "$1" -U postgres -d postgres -tAc "$q")" != 1 ]; then
		say "creating database $2"
		psql -X -q -h 127.0.0.1 -p "$1" -U postgres -d postgres -c "CREATE DATABASE \"$2\""
	fi
}

ensure_server
ensure_cluster "$name" "$port"
ensure_db "$port" "$db"
