-- outbox4j outbox schema, version 14, MariaDB 10.6+ / MySQL 8.0.13+: a key keeps the late-copy bound of its last
-- discarded entry.
--
-- An entry's available time may be the bound by which a copy of its last send still lands (a failed, postponed or
-- quarantined send). A discard passes that bound on to the key's next undelivered entry; when the key has none, the
-- key's row keeps it here, and the insert trigger makes every entry of the key written later available no earlier, so
-- it never overtakes that copy. The trigger reads the bound from the key's row it has just locked and updated, so it
-- sees the last committed bound at any isolation level. A discard locks the key's row before it looks for the next
-- entry, and clears bounds that have passed. See docs/stores.md, "Late copies through quarantine".

ALTER TABLE outbox4j_outbox_key
  ADD COLUMN late_copies_until DATETIME(6) NULL,
  ADD KEY outbox4j_ix_outbox_key_late_copies (late_copies_until);

DROP TRIGGER outbox4j_outbox_key_seq;

CREATE TRIGGER outbox4j_outbox_key_seq BEFORE INSERT ON outbox4j_outbox FOR EACH ROW
BEGIN
  INSERT INTO outbox4j_outbox_key (ordering_key, last_seq)
    SELECT NEW.ordering_key, 1 FROM DUAL WHERE NEW.ordering_key IS NOT NULL
    ON DUPLICATE KEY UPDATE last_seq = last_seq + 1;
  SET NEW.key_seq = (SELECT last_seq FROM outbox4j_outbox_key WHERE ordering_key = NEW.ordering_key);
  SET NEW.available_at = GREATEST(NEW.available_at, COALESCE((SELECT late_copies_until FROM outbox4j_outbox_key
    WHERE ordering_key = NEW.ordering_key), NEW.available_at));
END;
