-- outbox4j outbox schema, version 3, H2 2.x: the PARKED status (failed with no retry scheduled; status is free text
-- here, so only the kind column is new) and a typed quarantine kind.

-- H2 rebuilds the table for ALTER TABLE and would re-create the trigger on the temporary copy's name, where it would
-- look for the copy's key table: drop the trigger around the change and create it again on the final table.
DROP TRIGGER outbox4j_outbox_key_seq;
ALTER TABLE outbox4j_outbox ADD COLUMN quarantine_kind VARCHAR(32);
CREATE TRIGGER outbox4j_outbox_key_seq BEFORE INSERT ON outbox4j_outbox FOR EACH ROW
  CALL 'dev.outbox4j.jdbc.H2KeySequenceTrigger';

-- Entries quarantined before this version: tell the kind from the relay's reason text where it says so.
UPDATE outbox4j_outbox SET quarantine_kind = 'RETRIES_EXHAUSTED'
  WHERE status = 'QUARANTINED' AND quarantine_reason LIKE 'gave up after %';
UPDATE outbox4j_outbox SET quarantine_kind = 'PERMANENT_FAILURE'
  WHERE status = 'QUARANTINED' AND quarantine_reason LIKE 'permanent failure: %';
