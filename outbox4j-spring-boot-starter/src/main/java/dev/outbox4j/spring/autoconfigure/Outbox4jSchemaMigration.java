package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.flow.JdbcFlowLedger;
import dev.outbox4j.jdbc.inbox.JdbcInbox;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.InitializingBean;

/**
 * Applies outbox4j's own schema migrations when the bean is initialised (idempotent: each file runs once, recorded in
 * {@code <prefix>schema_version}), for the outbox and, when they are beans, the inbox and the flow ledger. Inactive
 * when {@code outbox4j.migrate} says the schema is managed elsewhere (Flyway or Liquibase with the files copied).
 *
 * <p>Thread-safe; runs once.
 */
public final class Outbox4jSchemaMigration implements InitializingBean {
  private final boolean active;
  private final JdbcOutboxStore store;
  private final @Nullable JdbcInbox inbox;
  private final @Nullable JdbcFlowLedger<?> flowLedger;

  /**
   * @param active whether to migrate
   * @param store the outbox store
   * @param inbox the inbox, or {@code null}
   * @param flowLedger the flow ledger, or {@code null}
   */
  public Outbox4jSchemaMigration(boolean active, JdbcOutboxStore store, @Nullable JdbcInbox inbox,
      @Nullable JdbcFlowLedger<?> flowLedger) {
    this.active = active;
    this.store = store;
    this.inbox = inbox;
    this.flowLedger = flowLedger;
  }

  /** @return whether this migration runs */
  public boolean isActive() {
    return active;
  }

  @Override
  public void afterPropertiesSet() {
    if (!active) {
      return;
    }
    store.migrate();
    if (inbox != null) {
      inbox.migrate();
    }
    if (flowLedger != null) {
      flowLedger.migrate();
    }
  }
}
