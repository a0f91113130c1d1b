-- outbox4j outbox schema, version 13, H2 2.x: the unkeyed entries waiting for each destination, in seq order.
--
-- A relay does not claim the entries of a destination it holds back (paused by an outage or by an operator). The
-- unkeyed lane (unkeyed_waiting, seq) would still read every waiting entry of such a destination before the next one
-- of any other: a paused destination's backlog read on every claim. With this index the claim reads each other
-- destination's own lane instead: the destinations with waiting unkeyed entries one index seek each, then each one's
-- oldest entries. See docs/schema.md, "Claims".

CREATE INDEX outbox4j_ix_outbox_unkeyed_destination ON outbox4j_outbox (unkeyed_waiting, destination, seq);
