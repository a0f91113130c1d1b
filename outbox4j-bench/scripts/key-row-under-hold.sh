#!/usr/bin/env bash
# Keyed commits on PostgreSQL while another session holds a REPEATABLE READ snapshot: the schema before V12 (the key's
# row counter updated per commit) against V12 (the key's row locked, the number from the outbox sequence).
# Two scratch databases, 8 pgbench clients, unthrottled, 1,000 keys, 120 s each, progress every 10 s; then the same
# without the hold, 30 s each, alternating. Needs psql and pgbench; PGHOST/PGUSER as for psql (default 127.0.0.1,
# postgres). Run from the repository root: outbox4j-bench/scripts/key-row-under-hold.sh
set -euo pipefail
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres}
migrations=outbox4j-jdbc/src/main/resources/db/outbox4j/postgresql
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/write.sql" <<'SQL'
\set k random(1, 1000)
INSERT INTO outbox4j_outbox (id, destination, ordering_key, payload) VALUES (gen_random_uuid(), 'd', 'key-' || :k, '\x00'::bytea);
SQL

for db in keyrow_v11 keyrow_v12; do
  psql -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
  for v in 1 2 3 4 5 6 7 8 9 10 11 12; do
    [[ $db == keyrow_v11 && $v == 12 ]] && break
    psql -q -v ON_ERROR_STOP=1 -d $db -f "$(ls $migrations/V${v}__*.sql)"
  done
done

for db in keyrow_v11 keyrow_v12; do
  echo "== $db, a REPEATABLE READ snapshot held in the same database"
  psql -q -d $db -c "VACUUM ANALYZE"
  psql -q -d $db -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SELECT count(*) FROM pg_class" \
    -c "SELECT pg_sleep(135)" >/dev/null &
  holder=$!
  sleep 2
  pgbench -n -c 8 -j 2 -T 120 -P 10 -f "$work/write.sql" $db 2>&1 | grep -E "^progress|^tps"
  psql -At -d $db -c "SELECT relname, n_tup_upd, n_tup_hot_upd, pg_size_pretty(pg_total_relation_size(relid))
    FROM pg_stat_user_tables WHERE relname IN ('outbox4j_outbox', 'outbox4j_outbox_key')"
  wait $holder
done

echo "== without a hold, 30 s each"
for db in keyrow_v11 keyrow_v12 keyrow_v11 keyrow_v12; do
  psql -q -d $db -c "TRUNCATE outbox4j_outbox" -c "VACUUM ANALYZE"
  echo -n "$db "
  pgbench -n -c 8 -j 2 -T 30 -f "$work/write.sql" $db 2>&1 | grep "^tps"
done
psql -q -d postgres -c "DROP DATABASE keyrow_v11" -c "DROP DATABASE keyrow_v12"
