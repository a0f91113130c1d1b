-- outbox4j outbox schema, version 13, PostgreSQL 15+: the unkeyed entries waiting for each destination, in seq order.
-- Written with the default names (prefix outbox4j_, no schema).
--
-- A relay does not claim the entries of a destination it holds back (paused by an outage or by an operator). The
-- unkeyed lane in seq order (outbox4j_ix_outbox_claim_unkeyed) would still read every waiting entry of such a
-- destination before the next one of any other: a paused destination's backlog read on every claim. With this index
-- the claim reads each other destination's own lane instead: one descent per destination with waiting unkeyed
-- entries, then that destination's oldest entries. See docs/schema.md, "Claims".

CREATE INDEX outbox4j_ix_outbox_unkeyed_destination ON outbox4j_outbox (destination, seq)
  WHERE status IN ('PENDING', 'FAILED') AND ordering_key IS NULL;
