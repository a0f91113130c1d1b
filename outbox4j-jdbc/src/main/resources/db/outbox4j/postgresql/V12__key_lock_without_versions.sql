-- outbox4j outbox schema, version 12, PostgreSQL 15+: the commit-time numbering of keyed entries locks the key's row
-- without writing a new version of it, and numbers the entry from the outbox sequence. Written with the default names
-- (prefix outbox4j_, no schema).
--
-- The key row's counter (last_seq) was updated by every keyed commit: one new row version per write, which nothing
-- can remove while another session holds a transaction open. At 2,000 msgs/s over 1,000 keys each key's row gathered
-- about a thousand versions in eight minutes, and every commit of the key walked them to find the live one: the
-- writers' commits slowed as long as the transaction stayed open. A row lock (FOR UPDATE) marks the row instead of
-- copying it. The number is the next value of the outbox sequence, taken while the lock is held: the lock lasts until
-- the commit ends, so a key's numbers still grow in the order of its commits, and they stay above every counter value
-- handed out before this version (the sequence has numbered every entry ever inserted). Under REPEATABLE READ or
-- SERIALIZABLE a writer no longer fails on a key another writer committed since its snapshot began; only the first
-- write of a new key can, when another transaction created that key in the meantime.
-- See docs/schema.md, "Per-key order is commit order".

CREATE OR REPLACE FUNCTION outbox4j_outbox_assign_key_seq() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
DECLARE
  allocated BIGINT;
BEGIN
  PERFORM 1 FROM outbox4j_outbox_key k WHERE k.ordering_key = NEW.ordering_key FOR UPDATE;
  IF NOT FOUND THEN
    -- waits for a transaction that inserted the key and has not ended; then inserts it, or finds it committed
    INSERT INTO outbox4j_outbox_key (ordering_key) VALUES (NEW.ordering_key) ON CONFLICT (ordering_key) DO NOTHING;
    IF NOT FOUND THEN
      PERFORM 1 FROM outbox4j_outbox_key k WHERE k.ordering_key = NEW.ordering_key FOR UPDATE;
    END IF;
  END IF;
  allocated := nextval('outbox4j_outbox_seq');
  UPDATE outbox4j_outbox SET key_seq = allocated, seq = allocated WHERE id = NEW.id;
  RETURN NULL;
END
$$;

ALTER TABLE outbox4j_outbox_key DROP COLUMN last_seq;

-- A key's numbers follow the order of nextval only without a cache (each session would draw from its own range);
-- the leased-batch claim refuses to run on a sequence with one.
ALTER SEQUENCE outbox4j_outbox_seq CACHE 1;
