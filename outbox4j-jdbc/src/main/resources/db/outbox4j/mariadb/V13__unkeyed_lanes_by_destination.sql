-- outbox4j outbox schema, version 13, MariaDB 10.6+ / MySQL 8.0.13+: the unkeyed entries waiting for each destination,
-- in seq order.
--
-- A relay does not claim the entries of a destination it holds back (paused by an outage or by an operator). The
-- unkeyed lane (unkeyed_waiting, seq) would still read every waiting entry of such a destination before the next one
-- of any other: a paused destination's backlog read on every claim. With this index the claim reads each other
-- destination's own lane instead: the destinations with waiting unkeyed entries by a loose index scan, then each one's
-- oldest entries. See docs/schema.md, "Claims".

ALTER TABLE outbox4j_outbox
  ADD KEY outbox4j_ix_outbox_unkeyed_destination (unkeyed_waiting, destination, seq);
