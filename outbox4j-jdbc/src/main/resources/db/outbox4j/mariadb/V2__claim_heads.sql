-- outbox4j outbox schema, version 2, MariaDB 10.6+ / MySQL 8.0.13+: what the claim needs to find work without walking a
-- backlog. Neither database has partial indexes, so two generated columns stand in for them: head_key is the ordering
-- key while the entry is undelivered (NULL once delivered or unkeyed), unkeyed_waiting is 1 for a waiting unkeyed entry.
-- The claim walks (head_key, key_seq) one key at a time to find each key's head, and (unkeyed_waiting, seq) for
-- unkeyed work, so entries queued behind a key's head are never read. See docs/schema.md, "Claims".
-- The index on (head_key, key_seq) replaces outbox4j_ix_outbox_key_head: it answers the same head-of-key question
-- without reading delivered history.

ALTER TABLE outbox4j_outbox
  ADD COLUMN head_key VARCHAR(255) AS (CASE WHEN status <> 'DELIVERED' THEN ordering_key END) STORED,
  ADD COLUMN unkeyed_waiting TINYINT AS
    (CASE WHEN status IN ('PENDING', 'FAILED') AND ordering_key IS NULL THEN 1 END) STORED,
  ADD KEY outbox4j_ix_outbox_head (head_key, key_seq),
  ADD KEY outbox4j_ix_outbox_unkeyed (unkeyed_waiting, seq),
  DROP KEY outbox4j_ix_outbox_key_head;
