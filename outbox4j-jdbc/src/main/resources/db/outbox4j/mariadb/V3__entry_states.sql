-- outbox4j outbox schema, version 3, MariaDB 10.6+ / MySQL 8.0.13+: the PARKED status (failed with no retry
-- scheduled; status is free text here, so only the kind column is new) and a typed quarantine kind.

ALTER TABLE outbox4j_outbox ADD COLUMN quarantine_kind VARCHAR(32) NULL;

-- Entries quarantined before this version: tell the kind from the relay's reason text where it says so.
UPDATE outbox4j_outbox SET quarantine_kind = 'RETRIES_EXHAUSTED'
  WHERE status = 'QUARANTINED' AND quarantine_reason LIKE 'gave up after %';
UPDATE outbox4j_outbox SET quarantine_kind = 'PERMANENT_FAILURE'
  WHERE status = 'QUARANTINED' AND quarantine_reason LIKE 'permanent failure: %';
