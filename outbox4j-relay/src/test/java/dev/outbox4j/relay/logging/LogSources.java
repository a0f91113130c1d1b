package dev.outbox4j.relay.logging;

import dev.outbox4j.relay.Main;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.slf4j.LoggerFactory;

/**
 * A child JVM's main for {@link LogFormatTest}: one record through each way a library inside the relay logs
 * (System.Logger, java.util.logging, SLF4J with structured arguments, a multi-line message, an exception), started the
 * way {@link Main} starts logging, with the format from the environment.
 */
public final class LogSources {
  private LogSources() {}

  /** @param args ignored */
  public static void main(String[] args) {
    RelayLogging.initialize();
    System.getLogger("dev.outbox4j.relay").log(System.Logger.Level.WARNING, "through System.Logger");
    Logger.getLogger("org.postgresql.Driver").log(Level.WARNING, "through java.util.logging");
    Logger.getLogger("org.postgresql.Driver").log(Level.FINE, "below the level: not written");
    org.slf4j.Logger slf4j = LoggerFactory.getLogger("org.apache.kafka.clients.NetworkClient");
    slf4j.atWarn().addKeyValue("destination", "orders").addKeyValue("key", "customer-7")
        .log("through SLF4J with a \"quoted\" word");
    slf4j.info("Kafka's INFO: not written");
    System.getLogger("dev.outbox4j.relay").log(System.Logger.Level.ERROR, "two\nlines",
        new IllegalStateException("outer", new IllegalArgumentException("inner")));
    System.getLogger("dev.outbox4j.relay").log(System.Logger.Level.DEBUG, "relay DEBUG: not written");
  }
}
