-- outbox4j outbox schema, version 3, PostgreSQL 15+: the PARKED status (failed with no retry scheduled) and a typed
-- quarantine kind. Written with the default names (prefix outbox4j_, no schema).

ALTER TABLE outbox4j_outbox ADD COLUMN quarantine_kind VARCHAR(32);

ALTER TABLE outbox4j_outbox DROP CONSTRAINT outbox4j_ck_outbox_status;
ALTER TABLE outbox4j_outbox ADD CONSTRAINT outbox4j_ck_outbox_status
  CHECK (status IN ('PENDING', 'FAILED', 'PARKED', 'DELIVERED', 'QUARANTINED'));

-- Entries quarantined before this version: tell the kind from the relay's reason text where it says so.
UPDATE outbox4j_outbox SET quarantine_kind = 'RETRIES_EXHAUSTED'
  WHERE status = 'QUARANTINED' AND quarantine_reason LIKE 'gave up after %';
UPDATE outbox4j_outbox SET quarantine_kind = 'PERMANENT_FAILURE'
  WHERE status = 'QUARANTINED' AND quarantine_reason LIKE 'permanent failure: %';

-- The operator's list (quarantined and parked entries), and its bulk requeue / discard, walk this index.
CREATE INDEX outbox4j_ix_outbox_operator ON outbox4j_outbox (seq) WHERE status IN ('QUARANTINED', 'PARKED');
