-- outbox4j flow ledger schema, MariaDB 10.6+ / MySQL 8 (version 101: numbered apart from the outbox's own files).
-- One row per flow: the codec's bytes verbatim (LONGBLOB, so even malformed content is kept and reported as
-- unreadable), the revision stored beside them, the time to live, and the execution lease (owner + expiry, both NULL
-- when unheld). Ids compare byte for byte (utf8mb4_bin). Times are DATETIME(6) holding UTC.

CREATE TABLE outbox4j_flow_ledger (
  flow_id     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  revision    BIGINT       NOT NULL,
  content     LONGBLOB     NOT NULL,
  expires_at  DATETIME(6)  NOT NULL,
  lease_owner VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  lease_until DATETIME(6)  NULL,
  updated_at  DATETIME(6)  NOT NULL,
  CONSTRAINT outbox4j_pk_flow_ledger PRIMARY KEY (flow_id)
) ENGINE = InnoDB;

-- The TTL purge deletes expired flows in bounded batches.
CREATE INDEX outbox4j_ix_flow_ledger_expires ON outbox4j_flow_ledger (expires_at);
