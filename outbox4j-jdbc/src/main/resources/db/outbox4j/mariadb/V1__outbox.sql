-- outbox4j outbox schema, version 1, MariaDB 10.6+ / MySQL 8.0.13+.
-- Written with the default names (prefix outbox4j_): Flyway or Liquibase can run this file as it is.
-- Times are DATETIME(6) holding UTC (never TIMESTAMP, which the server shifts by the session time_zone);
-- ids are CHAR(36) text; payload bytes are stored verbatim in LONGBLOB.

CREATE TABLE outbox4j_outbox (
  seq               BIGINT        NOT NULL AUTO_INCREMENT,
  id                CHAR(36)      CHARACTER SET ascii NOT NULL,
  destination       VARCHAR(255)  NOT NULL,
  ordering_key      VARCHAR(255)  NULL,
  key_seq           BIGINT        NULL,
  payload           LONGBLOB      NOT NULL,
  content_type      VARCHAR(255)  NOT NULL DEFAULT 'application/octet-stream',
  headers           LONGTEXT      NOT NULL DEFAULT ('{}'),
  not_before        DATETIME(6)   NULL,
  status            VARCHAR(16)   NOT NULL DEFAULT 'PENDING',
  attempts          INT           NOT NULL DEFAULT 0,
  last_error        VARCHAR(2000) NULL,
  quarantine_reason VARCHAR(2000) NULL,
  created_at        DATETIME(6)   NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
  available_at      DATETIME(6)   NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
  delivered_at      DATETIME(6)   NULL,
  delivery_result   VARCHAR(2000) NULL,
  claim_token       CHAR(36)      CHARACTER SET ascii NULL,
  lease_until       DATETIME(6)   NULL,
  version           BIGINT        NOT NULL DEFAULT 1,
  PRIMARY KEY (seq),
  UNIQUE KEY outbox4j_uq_outbox_id (id),
  KEY outbox4j_ix_outbox_claim (status, seq),
  KEY outbox4j_ix_outbox_key_head (ordering_key, key_seq),
  KEY outbox4j_ix_outbox_delivered (status, delivered_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per ordering key ever written: its row lock serialises same-key writers until commit, last_seq numbers them.
CREATE TABLE outbox4j_outbox_key (
  ordering_key VARCHAR(255) NOT NULL,
  last_seq     BIGINT       NOT NULL,
  PRIMARY KEY (ordering_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- There are no deferred triggers here, so the key's row is locked at INSERT time and held until commit: a second
-- writer of the same key waits, and its number is taken only after the first commits. The global AUTO_INCREMENT seq
-- is assigned outside that lock and so never orders a key; key_seq does. Unkeyed rows insert nothing and lock nothing.
CREATE TRIGGER outbox4j_outbox_key_seq BEFORE INSERT ON outbox4j_outbox FOR EACH ROW
BEGIN
  INSERT INTO outbox4j_outbox_key (ordering_key, last_seq)
    SELECT NEW.ordering_key, 1 FROM DUAL WHERE NEW.ordering_key IS NOT NULL
    ON DUPLICATE KEY UPDATE last_seq = last_seq + 1;
  SET NEW.key_seq = (SELECT last_seq FROM outbox4j_outbox_key WHERE ordering_key = NEW.ordering_key);
END;
