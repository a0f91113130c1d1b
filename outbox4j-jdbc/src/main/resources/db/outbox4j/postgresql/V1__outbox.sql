-- outbox4j outbox schema, version 1, PostgreSQL 15+.
-- Written with the default names (prefix outbox4j_, no schema): Flyway or Liquibase can run this file as it is.
-- Times are timestamptz (absolute instants); ids are uuid; payload bytes are stored verbatim in bytea.

CREATE SEQUENCE outbox4j_outbox_seq;

CREATE TABLE outbox4j_outbox (
  id                UUID          NOT NULL,
  seq               BIGINT        NOT NULL DEFAULT nextval('outbox4j_outbox_seq'),
  destination       VARCHAR(255)  NOT NULL,
  ordering_key      VARCHAR(255),
  key_seq           BIGINT,
  payload           BYTEA         NOT NULL,
  content_type      VARCHAR(255)  NOT NULL DEFAULT 'application/octet-stream',
  headers           TEXT          NOT NULL DEFAULT '{}',
  not_before        TIMESTAMPTZ,
  status            VARCHAR(16)   NOT NULL DEFAULT 'PENDING',
  attempts          INTEGER       NOT NULL DEFAULT 0,
  last_error        VARCHAR(2000),
  quarantine_reason VARCHAR(2000),
  created_at        TIMESTAMPTZ   NOT NULL DEFAULT clock_timestamp(),
  available_at      TIMESTAMPTZ   NOT NULL DEFAULT clock_timestamp(),
  delivered_at      TIMESTAMPTZ,
  delivery_result   VARCHAR(2000),
  claim_token       UUID,
  lease_until       TIMESTAMPTZ,
  version           BIGINT        NOT NULL DEFAULT 1,
  CONSTRAINT outbox4j_pk_outbox PRIMARY KEY (id),
  CONSTRAINT outbox4j_ck_outbox_status CHECK (status IN ('PENDING', 'FAILED', 'DELIVERED', 'QUARANTINED'))
);

ALTER SEQUENCE outbox4j_outbox_seq OWNED BY outbox4j_outbox.seq;

-- Claim: walks waiting entries in seq order; delivered rows are not in this index, so history costs nothing.
CREATE INDEX outbox4j_ix_outbox_claim ON outbox4j_outbox (seq) WHERE status IN ('PENDING', 'FAILED');
-- Head-of-key check: "is there an earlier undelivered entry of this key?" is one index probe.
CREATE INDEX outbox4j_ix_outbox_key_head ON outbox4j_outbox (ordering_key, key_seq)
  WHERE status <> 'DELIVERED' AND ordering_key IS NOT NULL;
CREATE INDEX outbox4j_ix_outbox_quarantined ON outbox4j_outbox (seq) WHERE status = 'QUARANTINED';
CREATE INDEX outbox4j_ix_outbox_delivered ON outbox4j_outbox (delivered_at) WHERE status = 'DELIVERED';

-- One row per ordering key ever written: its row lock serialises same-key commits, last_seq numbers them.
CREATE TABLE outbox4j_outbox_key (
  ordering_key VARCHAR(255) NOT NULL,
  last_seq     BIGINT       NOT NULL,
  CONSTRAINT outbox4j_pk_outbox_key PRIMARY KEY (ordering_key)
);

-- Runs at COMMIT (deferred): locks the key's row until the commit completes, then numbers the entry. Because the
-- number is taken while holding a lock that lasts until commit, key order equals commit order, even when a
-- transaction that inserted earlier commits later. Unkeyed entries never fire it and take no lock.
CREATE FUNCTION outbox4j_outbox_assign_key_seq() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  allocated BIGINT;
BEGIN
  INSERT INTO outbox4j_outbox_key AS k (ordering_key, last_seq) VALUES (NEW.ordering_key, 1)
    ON CONFLICT (ordering_key) DO UPDATE SET last_seq = k.last_seq + 1
    RETURNING k.last_seq INTO allocated;
  UPDATE outbox4j_outbox SET key_seq = allocated, seq = nextval('outbox4j_outbox_seq') WHERE id = NEW.id;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER outbox4j_tg_outbox_key_seq
  AFTER INSERT ON outbox4j_outbox
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.ordering_key IS NOT NULL)
  EXECUTE FUNCTION outbox4j_outbox_assign_key_seq();
