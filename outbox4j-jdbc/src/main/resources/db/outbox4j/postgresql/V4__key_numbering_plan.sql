-- outbox4j outbox schema, version 4, PostgreSQL 15+: the commit-time numbering of keyed entries always finds its row
-- through the primary key. Written with the default names (prefix outbox4j_, no schema).
--
-- The numbering function runs once per keyed entry, in the writer's session, which caches its UPDATE ... WHERE id = ?
-- as a generic plan. Planned while the outbox was small - its normal state when entries are deleted on delivery, and
-- always after an ANALYZE of an empty table - that plan is a sequential scan, and it stays cached until the next
-- ANALYZE: during a burst or a broker outage every keyed commit then read the whole backlog (300 keyed inserts read
-- 45,150 rows; 7.5 times the CPU of an unkeyed write in the benchmark). Without sequential scans the plan is the
-- primary-key lookup at every size.

ALTER FUNCTION outbox4j_outbox_assign_key_seq() SET enable_seqscan = off;
