-- outbox4j inbox schema, H2 2.x (version 100: numbered apart from the outbox's own files).
-- One row per (consumer, message id) a consumer has applied, written inside the consumer's transaction.

CREATE TABLE outbox4j_inbox (
  consumer_name VARCHAR(255)                NOT NULL,
  message_id    UUID                        NOT NULL,
  received_at   TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  CONSTRAINT outbox4j_pk_inbox PRIMARY KEY (consumer_name, message_id)
);

-- Retention deletes the oldest records in bounded batches.
CREATE INDEX outbox4j_ix_inbox_received ON outbox4j_inbox (received_at);
