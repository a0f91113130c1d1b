-- outbox4j outbox schema, version 14, PostgreSQL 15+: a key keeps the late-copy bound of its last discarded entry.
-- Written with the default names (prefix outbox4j_, no schema).
--
-- An entry's available time may be the bound by which a copy of its last send still lands (a failed, postponed or
-- quarantined send). A discard passes that bound on to the key's next undelivered entry; when the key has none, the
-- key's row keeps it here, and the commit-time numbering makes every entry of the key committed later available no
-- earlier, so it never overtakes that copy. A discard locks the key's row before it looks for the next entry, so a
-- writer of the key either committed before (and its entry takes the bound) or numbers its entry after the discard.
-- The numbering reads the bound from the row it already locks: no new row version per commit. A discard clears bounds
-- that have passed. See docs/stores.md, "Late copies through quarantine".

ALTER TABLE outbox4j_outbox_key ADD COLUMN late_copies_until TIMESTAMPTZ;
CREATE INDEX outbox4j_ix_outbox_key_late_copies ON outbox4j_outbox_key (late_copies_until)
  WHERE late_copies_until IS NOT NULL;

CREATE OR REPLACE FUNCTION outbox4j_outbox_assign_key_seq() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
DECLARE
  allocated BIGINT;
  bound TIMESTAMPTZ;
BEGIN
  SELECT k.late_copies_until INTO bound FROM outbox4j_outbox_key k WHERE k.ordering_key = NEW.ordering_key FOR UPDATE;
  IF NOT FOUND THEN
    -- waits for a transaction that inserted the key and has not ended; then inserts it, or finds it committed
    INSERT INTO outbox4j_outbox_key (ordering_key) VALUES (NEW.ordering_key) ON CONFLICT (ordering_key) DO NOTHING;
    IF NOT FOUND THEN
      SELECT k.late_copies_until INTO bound FROM outbox4j_outbox_key k WHERE k.ordering_key = NEW.ordering_key
        FOR UPDATE;
    END IF;
  END IF;
  allocated := nextval('outbox4j_outbox_seq');
  UPDATE outbox4j_outbox SET key_seq = allocated, seq = allocated,
    available_at = CASE WHEN bound > available_at THEN bound ELSE available_at END
    WHERE id = NEW.id;
  RETURN NULL;
END
$$;
