-- outbox4j outbox schema, version 9, H2 2.x: entries in doubt.
--
-- claimed_at is when the entry's current (or last) claim was made. A claim that takes over an entry whose previous
-- claim expired with nothing recorded marks it: in_doubt_since = the earliest such claim's time (created_at when the
-- claim was made before this version). markFailed, postpone and quarantine clear it; release keeps it. See
-- docs/stores.md, "Entries in doubt".

-- H2 rebuilds the table for ALTER TABLE and would re-create the trigger on the temporary copy's name, where it would
-- look for the copy's key table: drop the trigger around the change and create it again on the final table.
DROP TRIGGER outbox4j_outbox_key_seq;
ALTER TABLE outbox4j_outbox ADD COLUMN claimed_at TIMESTAMP(6) WITH TIME ZONE;
ALTER TABLE outbox4j_outbox ADD COLUMN in_doubt_since TIMESTAMP(6) WITH TIME ZONE;
CREATE TRIGGER outbox4j_outbox_key_seq BEFORE INSERT ON outbox4j_outbox FOR EACH ROW
  CALL 'dev.outbox4j.jdbc.H2KeySequenceTrigger';
