#!/usr/bin/env bash
# A PostgreSQL for the tests that need one (the runtime's database shared by many workers), from
# Debian's packages: install it if missing (root only), start the cluster, make a `chrysalis` role and
# a `chrysalis_test` database, and print the URL for TEST_POSTGRES_URL. Prints nothing and exits 1 when
# it cannot (then those tests skip, saying why). Idempotent: safe to run again.
set -uo pipefail
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || exit 1
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >/dev/null 2>&1 || exit 1
fi
command -v pg_lsclusters >/dev/null 2>&1 || exit 1
cluster=$(pg_lsclusters -h | head -1)
[ -n "$cluster" ] || exit 1
read -r version name _ <<<"$cluster"
pg_ctlcluster "$version" "$name" start >/dev/null 2>&1 || pg_lsclusters -h | grep -q online || exit 1
as_postgres() { runuser -u postgres -- "$@"; }
as_postgres psql -qtc "SELECT 1 FROM pg_roles WHERE rolname = 'chrysalis'" | grep -q 1 \
    || as_postgres psql -qc "CREATE ROLE chrysalis LOGIN PASSWORD 'chrysalis' CREATEDB" >/dev/null || exit 1
as_postgres psql -qtc "SELECT 1 FROM pg_database WHERE datname = 'chrysalis_test'" | grep -q 1 \
    || as_postgres createdb -O chrysalis chrysalis_test || exit 1
port=$(pg_lsclusters -h | head -1 | awk '{print $3}')
echo "postgresql://chrysalis:chrysalis@127.0.0.1:${port}/chrysalis_test"
