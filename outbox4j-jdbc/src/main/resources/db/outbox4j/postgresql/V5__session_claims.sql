-- outbox4j outbox schema, version 5, PostgreSQL 15+: what a relay with session-lock claims has in flight.
-- Written with the default names (prefix outbox4j_, no schema).
--
-- Under ClaimStrategy.SESSION_LOCKS a claim is an advisory lock of the relay's session, which the server releases the
-- moment the session ends. A relay that died may still have sends on the way to the broker, so its entries must not be
-- sent again before its lease has passed (a late copy would overtake the next message of its key). Each claimed batch
-- is therefore noted here, one row per batch, until it is completed or its lease has passed; other relays skip the
-- entries of an unexpired row. Leased-row claims (the default) never use this table.

CREATE TABLE outbox4j_outbox_claim (
  token       UUID         NOT NULL,
  seqs        BIGINT[]     NOT NULL,
  lease_until TIMESTAMPTZ  NOT NULL,
  CONSTRAINT outbox4j_pk_outbox_claim PRIMARY KEY (token)
);
