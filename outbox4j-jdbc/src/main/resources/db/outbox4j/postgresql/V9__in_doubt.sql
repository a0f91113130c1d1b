-- outbox4j outbox schema, version 9, PostgreSQL 15+: entries in doubt. Written with the default names (prefix
-- outbox4j_, no schema).
--
-- claimed_at is when the entry's current (or last) leased-row claim was made, and outbox_claim.claimed_at when a
-- leased batch was claimed. A claim that takes over an entry whose previous claim expired with nothing recorded marks
-- it: in_doubt_since = the earliest such claim's time (created_at for a batch noted before this version). markFailed,
-- postpone and quarantine clear it; release keeps it. See docs/stores.md, "Entries in doubt".

ALTER TABLE outbox4j_outbox ADD COLUMN claimed_at TIMESTAMPTZ, ADD COLUMN in_doubt_since TIMESTAMPTZ;
ALTER TABLE outbox4j_outbox_claim ADD COLUMN claimed_at TIMESTAMPTZ;
