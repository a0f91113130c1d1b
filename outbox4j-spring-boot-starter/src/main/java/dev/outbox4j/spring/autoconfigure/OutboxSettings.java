package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.KeyNumbering;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.CloudEvents;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.Health;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.Limits;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.Migrate;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.Relay;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.Retry;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.Tables;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.Write;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The settings of one outbox: its tables, write side, limits, relay, retry policy, health and CloudEvents mapping.
 * The single outbox has them at {@code outbox4j.*} ({@link Outbox4jProperties}), each of several outboxes at
 * {@code outbox4j.outboxes.<name>.*} ({@link Outbox4jProperties.NamedOutbox}); every default is the core's constant.
 *
 * <p>Mutable JavaBean, bound once at start-up by Spring Boot; not for use across threads.
 */
public abstract class OutboxSettings {
  private final Tables tables = new Tables();
  private final Write write = new Write();
  private final Limits limits = new Limits();
  private final Relay relay = new Relay();
  private final Retry retry = new Retry();
  private final Health health = new Health();
  /**
   * Destinations whose messages are sent as CloudEvents 1.0, by destination name (in brackets when it contains dots:
   * {@code outbox4j.cloudevents[orders.created].type}). None by default: other destinations are sent unchanged.
   */
  private final Map<String, CloudEvents> cloudevents = new LinkedHashMap<>();

  /**
   * When to apply outbox4j's schema migrations at start-up: auto (the default) applies them unless Flyway or
   * Liquibase is on the class path (then copy the migration files into your own), always, or never.
   */
  private Migrate migrate = Migrate.AUTO;

  /**
   * Delivered entries are kept this long and purged by the relay in bounded batches; unset (the default) deletes an
   * entry as soon as it is delivered.
   */
  private @Nullable Duration keepDelivered;

  /**
   * How the store holds the relay's claims; unset for the database's default: leased-batches on PostgreSQL (one
   * durable row per claimed batch), leased-rows elsewhere (a lease written into each claimed row).
   */
  private @Nullable ClaimStrategy claimStrategy;

  /**
   * PostgreSQL only: when keyed entries are numbered, at-commit (the schema's default) or at-insert (for writers that
   * run at SERIALIZABLE: the commit-time write-back makes many of their keyed commits fail with 40001); applied at
   * start-up after the migrations. Unset (the default) leaves the schema as it is. See docs/schema.md.
   */
  private @Nullable KeyNumbering keyNumbering;

  /** Creates the settings with the core's defaults; for the subclasses Spring Boot binds. */
  protected OutboxSettings() {}

  public Tables getTables() {
    return tables;
  }

  public Write getWrite() {
    return write;
  }

  public Limits getLimits() {
    return limits;
  }

  public Relay getRelay() {
    return relay;
  }

  public Retry getRetry() {
    return retry;
  }

  public Health getHealth() {
    return health;
  }

  public Map<String, CloudEvents> getCloudevents() {
    return cloudevents;
  }

  public Migrate getMigrate() {
    return migrate;
  }

  public void setMigrate(Migrate migrate) {
    this.migrate = migrate;
  }

  public @Nullable Duration getKeepDelivered() {
    return keepDelivered;
  }

  public void setKeepDelivered(@Nullable Duration keepDelivered) {
    this.keepDelivered = keepDelivered;
  }

  public @Nullable ClaimStrategy getClaimStrategy() {
    return claimStrategy;
  }

  public void setClaimStrategy(@Nullable ClaimStrategy claimStrategy) {
    this.claimStrategy = claimStrategy;
  }

  public @Nullable KeyNumbering getKeyNumbering() {
    return keyNumbering;
  }

  public void setKeyNumbering(@Nullable KeyNumbering keyNumbering) {
    this.keyNumbering = keyNumbering;
  }
}
