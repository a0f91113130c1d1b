-- outbox4j outbox schema, version 11, PostgreSQL 15+: the claim table's rows holding a given entry are found through
-- each row's last seq, a B-tree, instead of the GIN index on seqs. Written with the default names (prefix outbox4j_,
-- no schema).
--
-- Every claimed entry's seq became a key of the GIN index, and a GIN index keeps a key once its last row is gone:
-- vacuum removes the row pointers, not the key, so the index grew with every entry ever claimed (61 MB after 17
-- minutes at 1,000 msgs/s, for a table of one live row). A B-tree's empty pages are recycled by vacuum. A row holds
-- an entry only if its largest seq is at least the entry's, so a claim reads the rows from its smallest candidate on:
-- the rows claimed since that entry was written, never those retired before it, whatever an open transaction
-- elsewhere still sees. The function computes the largest seq whatever the order of the array.

CREATE FUNCTION outbox4j_outbox_claim_last_seq(seqs BIGINT[]) RETURNS BIGINT
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS 'SELECT max(s) FROM unnest(seqs) AS s';

CREATE INDEX outbox4j_ix_outbox_claim_last_seq ON outbox4j_outbox_claim (outbox4j_outbox_claim_last_seq(seqs));

-- The GIN index lives in the claim table's schema; DROP INDEX needs that schema when it is not on the search path.
-- The index's name is written unquoted, as CREATE INDEX wrote it, so that it folds to the same name.
DO $$
BEGIN
  EXECUTE 'DROP INDEX ' || quote_ident((SELECT n.nspname FROM pg_class c JOIN pg_namespace n
    ON n.oid = c.relnamespace WHERE c.oid = 'outbox4j_outbox_claim'::regclass)) || '.outbox4j_ix_outbox_claim_seqs';
END
$$;
