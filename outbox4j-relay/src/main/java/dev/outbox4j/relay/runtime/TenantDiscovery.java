package dev.outbox4j.relay.runtime;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Finds the tenant schemas of a tenants entry ({@code outboxes.<name>.tenants}) at start and again every
 * {@code tenants.rediscover}, and hands each reading to the runtime, which starts an outbox for each new schema and
 * closes the outbox of each schema that went away. A reading that fails (the database down) changes nothing: the
 * tenants found before keep running, and the next reading tries again.
 *
 * <p>What a reading finds is {@link TenantSchemas#find}.
 *
 * <p>Thread-safe.
 */
final class TenantDiscovery implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(TenantDiscovery.class.getName());

  private final RelayConfig.Outbox entry;
  private final SharedPools pools;
  private final Consumer<Set<String>> onSchemas;
  private final ScheduledExecutorService executor;

  /**
   * @param entry the tenants entry
   * @param pools where its database's pool is
   * @param onSchemas receives each successful reading: every tenant schema now, sorted
   */
  TenantDiscovery(RelayConfig.Outbox entry, SharedPools pools, Consumer<Set<String>> onSchemas) {
    this.entry = entry;
    this.pools = pools;
    this.onSchemas = onSchemas;
    this.executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "outbox4j-tenants-" + entry.name());
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Reads now on the calling thread, then every {@code tenants.rediscover} in the background. */
  void start() {
    discoverQuietly();
    long every = entry.tenants().rediscover().toMillis();
    executor.scheduleWithFixedDelay(this::discoverQuietly, every, every, TimeUnit.MILLISECONDS);
  }

  private void discoverQuietly() {
    try {
      onSchemas.accept(discover());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "outbox " + entry.name() + ": could not look for tenant schemas ("
          + RelayAssembly.rootMessage(e) + "); the tenants found before keep running, trying again in "
          + entry.tenants().rediscover().toSeconds() + " s");
    }
  }

  /** @return the tenant schemas now */
  Set<String> discover() {
    HikariDataSource pool = pools.acquire(entry.name(), entry.database(), "outbox4j-relay-" + entry.name());
    try {
      return TenantSchemas.find(entry, pool);
    } finally {
      pools.release(pool);
    }
  }

  /** Stops looking. */
  @Override
  public void close() {
    executor.shutdownNow();
  }
}
