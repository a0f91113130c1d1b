-- outbox4j flow ledger schema, PostgreSQL 15+ (version 101: numbered apart from the outbox's own files).
-- One row per flow: the codec's bytes verbatim (bytea, so even malformed content is kept and reported as unreadable),
-- the revision stored beside them, the time to live, and the execution lease (owner + expiry, both NULL when unheld).

CREATE TABLE outbox4j_flow_ledger (
  flow_id     VARCHAR(255) NOT NULL,
  revision    BIGINT       NOT NULL,
  content     BYTEA        NOT NULL,
  expires_at  TIMESTAMPTZ  NOT NULL,
  lease_owner VARCHAR(255),
  lease_until TIMESTAMPTZ,
  updated_at  TIMESTAMPTZ  NOT NULL,
  CONSTRAINT outbox4j_pk_flow_ledger PRIMARY KEY (flow_id),
  CONSTRAINT outbox4j_ck_flow_ledger_lease CHECK ((lease_owner IS NULL) = (lease_until IS NULL))
);

-- The TTL purge deletes expired flows in bounded batches.
CREATE INDEX outbox4j_ix_flow_ledger_expires ON outbox4j_flow_ledger (expires_at);
