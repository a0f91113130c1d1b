-- outbox4j outbox schema, version 7: destinations an operator paused by hand (OutboxStore.pauseDestination, the relay
-- app's pause command). Written with the default names (prefix outbox4j_, no schema).
--
-- One row per paused destination. Every relay reads this small table about once a second and holds back the claimed
-- entries of the destinations in it, uncharged and without probes, until the row is deleted (resume).

CREATE TABLE outbox4j_outbox_destination_pause (
  destination VARCHAR(255)  NOT NULL,
  paused_at   DATETIME(6) NOT NULL,
  paused_by   VARCHAR(255)  NOT NULL,
  reason      VARCHAR(2000) NOT NULL,
  PRIMARY KEY (destination)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
