package dev.outbox4j.relay.runtime;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The connection pools of a relay process: one per configured outbox, shared by the tenant outboxes of a tenants
 * entry (fifty tenant schemas are one pool of {@code database.pool-size}, not fifty). Two configured outboxes never
 * share a pool, even on one database: a busy outbox's claims and completions then never queue for a connection a quiet
 * one needs, and one database that hangs or refuses holds no connection another outbox needs.
 *
 * <p>Why counted: a tenant that goes away gives its share back, and the pool closes with its last outbox.
 *
 * <p>Thread-safe.
 */
final class SharedPools implements AutoCloseable {
  private final Map<Key, Shared> pools = new HashMap<>();

  /** What makes two outboxes' databases the same pool. */
  private record Key(String entry, String url, String username, String password, Map<String, String> properties,
      int size) {
    static Key of(String entry, RelayConfig.Database database) {
      return new Key(entry, database.url(), Objects.toString(database.username(), ""),
          Objects.toString(database.password(), ""), database.driverProperties(), database.poolSize());
    }
  }

  private static final class Shared {
    final HikariDataSource pool;
    int users;

    Shared(HikariDataSource pool) {
      this.pool = pool;
    }
  }

  /**
   * @param outbox the outbox's name; a tenant outbox's ({@code <entry>:<schema>}) counts as its entry's
   * @param database the outbox's database
   * @param poolName the pool's name, if it is opened now
   * @return the pool of that database, opened now unless an outbox already holds it; give it back with
   *     {@link #release}
   * @throws dev.outbox4j.OutboxException when it has to be opened and the database cannot be reached
   */
  synchronized HikariDataSource acquire(String outbox, RelayConfig.Database database, String poolName) {
    int separator = outbox.indexOf(RelayConfig.TENANT_SEPARATOR);
    Key key = Key.of(separator < 0 ? outbox : outbox.substring(0, separator), database);
    Shared shared = pools.get(key);
    if (shared == null) {
      shared = new Shared(RelayAssembly.dataSource(database, poolName));
      pools.put(key, shared);
    }
    shared.users++;
    return shared.pool;
  }

  /** @param pool a pool {@link #acquire} gave; closed when its last outbox gives it back */
  synchronized void release(HikariDataSource pool) {
    pools.entrySet().removeIf(entry -> {
      if (entry.getValue().pool != pool) {
        return false;
      }
      if (--entry.getValue().users > 0) {
        return false;
      }
      pool.close();
      return true;
    });
  }

  /** Closes every pool. */
  @Override
  public synchronized void close() {
    pools.values().forEach(shared -> shared.pool.close());
    pools.clear();
  }
}
