-- outbox4j outbox schema, version 6, PostgreSQL 15+: when an entry's first charged delivery attempt failed. The retry
-- policy's time budget counts from it; markFailed sets it once, requeue clears it, a postponement (an outage, no
-- attempt charged) leaves it alone. Written with the default names (prefix outbox4j_, no schema).

ALTER TABLE outbox4j_outbox ADD COLUMN first_failed_at TIMESTAMPTZ;
