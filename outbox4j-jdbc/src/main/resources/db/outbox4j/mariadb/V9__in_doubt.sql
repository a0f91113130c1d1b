-- outbox4j outbox schema, version 9, MariaDB 10.6+ / MySQL 8.0.13+: entries in doubt (DATETIME(6) holding UTC, as
-- every time here).
--
-- claimed_at is when the entry's current (or last) claim was made. A claim that takes over an entry whose previous
-- claim expired with nothing recorded marks it: in_doubt_since = the earliest such claim's time (created_at when the
-- claim was made before this version). markFailed, postpone and quarantine clear it; release keeps it. See
-- docs/stores.md, "Entries in doubt".

ALTER TABLE outbox4j_outbox
  ADD COLUMN claimed_at DATETIME(6) NULL,
  ADD COLUMN in_doubt_since DATETIME(6) NULL;
