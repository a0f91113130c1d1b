-- outbox4j outbox schema, version 8: the audit log of operator actions (OutboxStore.recordOperatorAction; written by
-- the relay app's CLI and dashboard and by the Spring Boot Actuator endpoint). Written with the default names (prefix
-- outbox4j_, no schema).
--
-- One row per action that changed the outbox or a destination: who (actor), what (action), on what (target), how many
-- entries it changed, and when. Operator actions are rare, so the table stays small; rows are never updated.

CREATE TABLE outbox4j_operator_audit (
  id        BIGINT        NOT NULL AUTO_INCREMENT,
  acted_at  DATETIME(6)   NOT NULL,
  actor     VARCHAR(255)  NOT NULL,
  action    VARCHAR(64)   NOT NULL,
  target    VARCHAR(2000) NOT NULL,
  entries   BIGINT        NOT NULL,
  detail    VARCHAR(2000) NOT NULL,
  PRIMARY KEY (id),
  KEY outbox4j_ix_operator_audit_acted_at (acted_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
