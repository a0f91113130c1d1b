-- outbox4j outbox schema, version 2, PostgreSQL 15+: what the claim needs to find work without walking a backlog.
-- The claim takes unkeyed entries from their own lane (this index, in seq order) and a key's head through
-- outbox4j_ix_outbox_key_head (one index descent per key with undelivered entries), so entries queued behind a key's
-- head are never read. See docs/schema.md, "Claims".

CREATE INDEX outbox4j_ix_outbox_claim_unkeyed ON outbox4j_outbox (seq)
  WHERE status IN ('PENDING', 'FAILED') AND ordering_key IS NULL;
