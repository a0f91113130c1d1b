-- outbox4j outbox schema, version 2, H2 2.x: what the claim needs to find work without walking a backlog.
-- H2 has no partial indexes, so two generated columns stand in for them: head_key is the ordering key while the entry
-- is undelivered (NULL once delivered or unkeyed), unkeyed_waiting is 1 for a waiting unkeyed entry. The claim walks
-- (head_key, key_seq) one key at a time to find each key's head, and (unkeyed_waiting, seq) for unkeyed work, so
-- entries queued behind a key's head are never read. See docs/schema.md, "Claims".
-- The index on (head_key, key_seq) replaces outbox4j_ix_outbox_key_head.

ALTER TABLE outbox4j_outbox ADD COLUMN head_key VARCHAR(255)
  GENERATED ALWAYS AS (CASE WHEN status <> 'DELIVERED' THEN ordering_key END);
-- A simple CASE on status, not IN (...) or OR: H2 2.4 compiles both into a constant set bound to the session that ran
-- this DDL, and once that connection closes every insert fails with "The database has been closed".
ALTER TABLE outbox4j_outbox ADD COLUMN unkeyed_waiting INTEGER
  GENERATED ALWAYS AS (CASE WHEN ordering_key IS NULL THEN CASE status WHEN 'PENDING' THEN 1 WHEN 'FAILED' THEN 1 END END);
CREATE INDEX outbox4j_ix_outbox_head ON outbox4j_outbox (head_key, key_seq);
CREATE INDEX outbox4j_ix_outbox_unkeyed ON outbox4j_outbox (unkeyed_waiting, seq);
DROP INDEX IF EXISTS outbox4j_ix_outbox_key_head;

-- H2 rebuilds the table for ADD COLUMN through a temporary copy, and the per-key trigger keeps the name it was
-- initialised with (the copy's), so it is created afresh on the final table.
DROP TRIGGER outbox4j_outbox_key_seq;
CREATE TRIGGER outbox4j_outbox_key_seq BEFORE INSERT ON outbox4j_outbox FOR EACH ROW
  CALL 'dev.outbox4j.jdbc.H2KeySequenceTrigger';
