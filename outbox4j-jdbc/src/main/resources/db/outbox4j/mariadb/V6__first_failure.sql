-- outbox4j outbox schema, version 6, MariaDB 10.6+ / MySQL 8.0.13+: when an entry's first charged delivery attempt
-- failed (DATETIME(6) holding UTC, as every time here). The retry policy's time budget counts from it; markFailed sets
-- it once, requeue clears it, a postponement (an outage, no attempt charged) leaves it alone.

ALTER TABLE outbox4j_outbox ADD COLUMN first_failed_at DATETIME(6) NULL;
