-- outbox4j outbox schema, version 14, H2 2.x: a key keeps the late-copy bound of its last discarded entry.
--
-- An entry's available time may be the bound by which a copy of its last send still lands (a failed, postponed or
-- quarantined send). A discard passes that bound on to the key's next undelivered entry; when the key has none, the
-- key's row keeps it here, and the insert trigger (H2KeySequenceTrigger) makes every entry of the key written later
-- available no earlier, so it never overtakes that copy. A discard locks the key's row before it looks for the next
-- entry, and clears bounds that have passed. See docs/stores.md, "Late copies through quarantine".

ALTER TABLE outbox4j_outbox_key ADD COLUMN late_copies_until TIMESTAMP(6) WITH TIME ZONE;
CREATE INDEX outbox4j_ix_outbox_key_late_copies ON outbox4j_outbox_key (late_copies_until);

-- The trigger learns at its start whether the key table keeps bounds: create it afresh.
DROP TRIGGER outbox4j_outbox_key_seq;
CREATE TRIGGER outbox4j_outbox_key_seq BEFORE INSERT ON outbox4j_outbox FOR EACH ROW
  CALL 'dev.outbox4j.jdbc.H2KeySequenceTrigger';
