package dev.outbox4j.relay.runtime;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The connection pools of a relay process, one per database (URL, user, password and driver properties): the
 * outboxes of one database (tenant schemas above all) share its pool, and outboxes of different databases never do,
 * so one database that hangs or refuses holds no connection another outbox needs.
 *
 * <p>Why counted: a tenant that goes away gives its share back, and the pool closes with its last outbox.
 *
 * <p>Thread-safe.
 */
final class SharedPools implements AutoCloseable {
  private final Map<Key, Shared> pools = new HashMap<>();

  /** What makes two outboxes' databases the same pool. */
  private record Key(String url, String username, String password, Map<String, String> properties, int size) {
    static Key of(RelayConfig.Database database) {
      return new Key(database.url(), Objects.toString(database.username(), ""),
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
   * @param database the outbox's database
   * @param poolName the pool's name, if it is opened now
   * @return the pool of that database, opened now unless an outbox already holds it; give it back with
   *     {@link #release}
   * @throws dev.outbox4j.OutboxException when it has to be opened and the database cannot be reached
   */
  synchronized HikariDataSource acquire(RelayConfig.Database database, String poolName) {
    Key key = Key.of(database);
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
