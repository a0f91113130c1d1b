-- outbox4j outbox schema, version 10, PostgreSQL 15+: indexes of the leased batches' claim table. Written with the
-- default names (prefix outbox4j_, no schema).
--
-- A claim row lives for one batch: inserted by the claim, deleted by its last completion. While another session holds
-- a transaction open, none of those deleted rows can be removed, and a sequential scan of the table reads them all,
-- claim after claim. These indexes bound each read by what it asks for instead:
-- * the unexpired rows (entries in flight): a range of lease_until from now, so only the rows of the last lease;
-- * the rows that hold a given entry (the claim's re-check, and whether an expired row must be taken over first): the
--   GIN index on seqs, so only the rows that ever held one of the candidates. fastupdate off: a search never reads a
--   pending list that only vacuum would clear.
-- See docs/stores.md, "A long transaction elsewhere".

CREATE INDEX outbox4j_ix_outbox_claim_lease ON outbox4j_outbox_claim (lease_until);
CREATE INDEX outbox4j_ix_outbox_claim_seqs ON outbox4j_outbox_claim USING gin (seqs) WITH (fastupdate = off);
