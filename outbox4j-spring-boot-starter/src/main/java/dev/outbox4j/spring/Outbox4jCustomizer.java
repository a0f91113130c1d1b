package dev.outbox4j.spring;

import dev.outbox4j.Outbox;
import dev.outbox4j.RelayBuilder;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.inbox.JdbcInbox;
import dev.outbox4j.spi.Transport;
import java.sql.Connection;

/**
 * Adjusts what {@code outbox4j.*} properties cannot express, before the starter builds each component: a clock, an
 * executor, listeners, a custom address mapping, a decorator around the writer or the transport. Declare any number of
 * beans of this type; they are applied in {@link org.springframework.core.annotation.Order} order, after the
 * properties. Every method has a default that changes nothing.
 *
 * <p>To replace a component outright, declare a bean of its type instead: every bean the starter makes backs off.
 */
public interface Outbox4jCustomizer {

  /** @param builder the store's builder, with the properties applied */
  default void customizeStore(JdbcOutboxStore.Builder builder) {}

  /** @param builder the writer's builder, with the properties applied */
  default void customizeWriter(JdbcOutbox.Builder builder) {}

  /**
   * @param outbox the writer {@link TransactionalOutbox} will use
   * @return the writer to use instead, for example a decorator; the default returns it unchanged
   */
  default Outbox<Connection> decorateWriter(Outbox<Connection> outbox) {
    return outbox;
  }

  /**
   * @param transport the transport the relay will use
   * @return the transport to use instead, for example a decorator; the default returns it unchanged
   */
  default Transport decorateTransport(Transport transport) {
    return transport;
  }

  /** @param builder the relay's builder, with the properties and the listeners applied */
  default void customizeRelay(RelayBuilder builder) {}

  /** @param builder the inbox's builder, with the properties applied */
  default void customizeInbox(JdbcInbox.Builder builder) {}
}
