-- outbox4j outbox schema, version 6, H2 2.x: when an entry's first charged delivery attempt failed. The retry policy's
-- time budget counts from it; markFailed sets it once, requeue clears it, a postponement (an outage, no attempt
-- charged) leaves it alone.

-- H2 rebuilds the table for ALTER TABLE and would re-create the trigger on the temporary copy's name, where it would
-- look for the copy's key table: drop the trigger around the change and create it again on the final table.
DROP TRIGGER outbox4j_outbox_key_seq;
ALTER TABLE outbox4j_outbox ADD COLUMN first_failed_at TIMESTAMP(6) WITH TIME ZONE;
CREATE TRIGGER outbox4j_outbox_key_seq BEFORE INSERT ON outbox4j_outbox FOR EACH ROW
  CALL 'dev.outbox4j.jdbc.H2KeySequenceTrigger';
