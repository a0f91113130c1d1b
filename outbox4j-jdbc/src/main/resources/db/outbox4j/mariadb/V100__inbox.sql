-- outbox4j inbox schema, MariaDB 10.6+ / MySQL 8 (version 100: numbered apart from the outbox's own files).
-- One row per (consumer, message id) a consumer has applied, written inside the consumer's transaction.
-- Consumer names compare byte for byte (utf8mb4_bin): "Billing" and "billing" are two consumers.
-- Times are DATETIME(6) holding UTC; ids are CHAR(36) text.

CREATE TABLE outbox4j_inbox (
  consumer_name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  message_id    CHAR(36)     CHARACTER SET ascii NOT NULL,
  received_at   DATETIME(6)  NOT NULL,
  CONSTRAINT outbox4j_pk_inbox PRIMARY KEY (consumer_name, message_id)
) ENGINE = InnoDB;

-- Retention deletes the oldest records in bounded batches.
CREATE INDEX outbox4j_ix_inbox_received ON outbox4j_inbox (received_at);
