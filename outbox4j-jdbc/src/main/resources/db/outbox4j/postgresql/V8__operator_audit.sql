-- outbox4j outbox schema, version 8: the audit log of operator actions (OutboxStore.recordOperatorAction; written by
-- the relay app's CLI and dashboard and by the Spring Boot Actuator endpoint). Written with the default names (prefix
-- outbox4j_, no schema).
--
-- One row per action that changed the outbox or a destination: who (actor), what (action), on what (target), how many
-- entries it changed, and when. Operator actions are rare, so the table stays small; rows are never updated.

CREATE TABLE outbox4j_operator_audit (
  id        BIGINT        GENERATED ALWAYS AS IDENTITY,
  acted_at  TIMESTAMPTZ   NOT NULL,
  actor     VARCHAR(255)  NOT NULL,
  action    VARCHAR(64)   NOT NULL,
  target    VARCHAR(2000) NOT NULL,
  entries   BIGINT        NOT NULL,
  detail    VARCHAR(2000) NOT NULL,
  CONSTRAINT outbox4j_pk_operator_audit PRIMARY KEY (id)
);

-- The latest actions first: ORDER BY acted_at DESC, id DESC LIMIT n.
CREATE INDEX outbox4j_ix_operator_audit_acted_at ON outbox4j_operator_audit (acted_at);
