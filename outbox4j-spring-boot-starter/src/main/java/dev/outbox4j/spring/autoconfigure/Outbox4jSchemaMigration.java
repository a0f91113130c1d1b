package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.KeyNumbering;
import dev.outbox4j.jdbc.flow.JdbcFlowLedger;
import dev.outbox4j.jdbc.inbox.JdbcInbox;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.InitializingBean;

/**
 * Applies outbox4j's own schema migrations when the bean is initialised (idempotent: each file runs once, recorded in
 * {@code <prefix>schema_version}), for the outbox and, when they are beans, the inbox and the flow ledger. Inactive
 * when {@code outbox4j.migrate} says the schema is managed elsewhere (Flyway or Liquibase with the files copied).
 * Then, whether it migrated or not, has PostgreSQL number keyed entries as {@code outbox4j.key-numbering} says, when
 * it is set.
 *
 * <p>Thread-safe; runs once.
 */
public final class Outbox4jSchemaMigration implements InitializingBean {
  private final boolean active;
  private final JdbcOutboxStore store;
  private final @Nullable JdbcInbox inbox;
  private final @Nullable JdbcFlowLedger<?> flowLedger;
  private final @Nullable KeyNumbering keyNumbering;

  /**
   * @param active whether to migrate
   * @param store the outbox store
   * @param inbox the inbox, or {@code null}
   * @param flowLedger the flow ledger, or {@code null}
   */
  public Outbox4jSchemaMigration(boolean active, JdbcOutboxStore store, @Nullable JdbcInbox inbox,
      @Nullable JdbcFlowLedger<?> flowLedger) {
    this(active, store, inbox, flowLedger, null);
  }

  /**
   * @param active whether to migrate
   * @param store the outbox store
   * @param inbox the inbox, or {@code null}
   * @param flowLedger the flow ledger, or {@code null}
   * @param keyNumbering when PostgreSQL numbers keyed entries, or {@code null} to leave the schema as it is
   */
  public Outbox4jSchemaMigration(boolean active, JdbcOutboxStore store, @Nullable JdbcInbox inbox,
      @Nullable JdbcFlowLedger<?> flowLedger, @Nullable KeyNumbering keyNumbering) {
    this.active = active;
    this.store = store;
    this.inbox = inbox;
    this.flowLedger = flowLedger;
    this.keyNumbering = keyNumbering;
  }

  /** @return whether this migration runs */
  public boolean isActive() {
    return active;
  }

  @Override
  public void afterPropertiesSet() {
    if (active) {
      store.migrate();
      if (inbox != null) {
        inbox.migrate();
      }
      if (flowLedger != null) {
        flowLedger.migrate();
      }
    }
    if (keyNumbering != null) {
      store.useKeyNumbering(keyNumbering);
    }
  }
}
