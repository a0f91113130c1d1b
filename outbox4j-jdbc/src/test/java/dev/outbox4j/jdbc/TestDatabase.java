package dev.outbox4j.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spi.Retention;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The three real databases the tests run on, each with its own table prefix per test class so classes never see each
 * other's rows. PostgreSQL sessions run in {@code Pacific/Chatham} (UTC+13:45 in summer) and MariaDB sessions at
 * {@code +05:45}: instants must survive a non-UTC session time zone.
 */
enum TestDatabase {
  POSTGRES,
  MARIADB,
  H2;

  private static final Map<String, HikariDataSource> POOLS = new ConcurrentHashMap<>();

  /** @return the URL of this JVM's own database (see {@link RunDatabases}); for H2, one in-memory database per prefix */
  String url(String prefix) {
    return switch (this) {
      case POSTGRES -> RunDatabases.postgresUrl();
      case MARIADB -> RunDatabases.mariadbUrl() + "&sessionVariables=time_zone='+05:45'";
      case H2 -> "jdbc:h2:mem:" + prefix + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000";
    };
  }

  /** @return a new, separate pool (the caller closes it) */
  HikariDataSource newPool(String prefix, int size) {
    return newPool(prefix, size, config -> { });
  }

  /** @return a new, separate pool, configured further by {@code more} (the caller closes it) */
  HikariDataSource newPool(String prefix, int size, java.util.function.Consumer<HikariConfig> more) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url(prefix));
    config.setMaximumPoolSize(size);
    // Hold connections only while used: a test JVM keeps many pools open, and builds running side by side share the
    // server's connection limit (PostgreSQL's default max_connections is 100).
    config.setMinimumIdle(0);
    config.setIdleTimeout(10_000);
    config.setPoolName(name() + "-" + prefix + "-" + POOLS.size());
    if (this == POSTGRES) {
      // pgjdbc sends the JVM's zone as a startup parameter, overriding URL options; set the session zone after it
      config.setConnectionInitSql("SET TIME ZONE 'Pacific/Chatham'");
    }
    more.accept(config);
    return new HikariDataSource(config);
  }

  /** @return the shared pool of this prefix, its schema dropped and migrated afresh on first use in this JVM */
  DataSource pool(String prefix) {
    // keyed by database too: the same prefix on two databases is two pools
    return POOLS.computeIfAbsent(name() + "/" + prefix, key -> {
      HikariDataSource pool = newPool(prefix, 10);
      dropAndMigrate(pool, TableNames.withPrefix(prefix));
      return pool;
    });
  }

  /** @return an empty store over the prefix's tables */
  JdbcOutboxStore emptyStore(String prefix, Clock clock, Retention retention) {
    return emptyStore(prefix, clock, retention, null);
  }

  /**
   * @param claims the claim strategy, or {@code null} for the database's default
   * @return an empty store over the prefix's tables
   */
  JdbcOutboxStore emptyStore(String prefix, Clock clock, Retention retention, @Nullable ClaimStrategy claims) {
    DataSource pool = pool(prefix);
    truncate(pool, TableNames.withPrefix(prefix));
    return store(pool, prefix, clock, retention, claims);
  }

  private static JdbcOutboxStore store(DataSource pool, String prefix, Clock clock, Retention retention,
      @Nullable ClaimStrategy claims) {
    JdbcOutboxStore.Builder builder = JdbcOutboxStore.builder(pool).withTablePrefix(prefix).withClock(clock)
        .withRetention(retention);
    if (claims != null) {
      builder.withClaimStrategy(claims);
    }
    return builder.build();
  }

  /**
   * @return another store instance over the prefix's tables, with a pool of its own, as a second relay process would
   *     have; nothing is truncated. The pool lives as long as the test JVM.
   */
  JdbcOutboxStore secondStore(String prefix, Clock clock, Retention retention) {
    return secondStore(prefix, clock, retention, null);
  }

  /** As {@link #secondStore(String, Clock, Retention)}, claiming with the given strategy; the caller closes it. */
  JdbcOutboxStore secondStore(String prefix, Clock clock, Retention retention, @Nullable ClaimStrategy claims) {
    DataSource pool = POOLS.computeIfAbsent(prefix + "#second", p -> newPool(prefix, 4));
    return store(pool, prefix, clock, retention, claims);
  }

  /**
   * @return another store over the prefix's tables, as an operator's CLI in a process of its own has, with a pool of
   *     its own (living as long as the test JVM) whose PostgreSQL sessions default to REPEATABLE READ, as a pool or
   *     role may set them, and plan statements as for an outbox of many rows: walking an index in {@code seq} order
   *     and locking each row as it comes, rather than reading a test's few rows whole and sorting them first; nothing
   *     is truncated
   */
  JdbcOutboxStore operatorStore(String prefix, Clock clock, Retention retention) {
    DataSource pool = POOLS.computeIfAbsent(prefix + "#operator", p -> {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url(prefix));
      config.setMaximumPoolSize(2);
      config.setMinimumIdle(0);
      config.setIdleTimeout(10_000);
      config.setPoolName(name() + "-" + prefix + "-operator");
      if (this == POSTGRES) {
        config.setConnectionInitSql("SET enable_seqscan = off; SET enable_sort = off; SET enable_bitmapscan = off;"
            + " SET default_transaction_isolation = 'repeatable read'");
      }
      return new HikariDataSource(config);
    });
    return store(pool, prefix, clock, retention, null);
  }

  void dropAndMigrate(DataSource dataSource, TableNames names) {
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
      switch (this) {
        case POSTGRES -> PostgresTestOutbox.dropOutboxSchema(s, names);
        case MARIADB -> s.execute("DROP TABLE IF EXISTS " + names.qualified("outbox") + ", "
            + names.qualified("outbox_key") + ", " + names.qualified("outbox_destination_pause") + ", "
            + names.qualified("operator_audit") + ", "
            + names.qualified("schema_version"));
        case H2 -> s.execute("DROP ALL OBJECTS");
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    JdbcOutboxStore.builder(dataSource).withTableNames(names).build().migrate();
  }

  /**
   * Writes a row into the prefix's outbox as another application would: the INSERT of docs/schema.md ("Writing an
   * outbox row from another application"), every value bound, committed before it returns.
   */
  void insertWithPlainSql(String prefix, dev.outbox4j.testkit.PlainSqlRow row) {
    String table = TableNames.withPrefix(prefix).qualified("outbox");
    try (Connection c = pool(prefix).getConnection(); java.sql.PreparedStatement insert = c.prepareStatement(
        "INSERT INTO " + table + " (id, destination, ordering_key, payload, content_type, headers)"
            + " VALUES (?, ?, ?, ?, ?, ?)")) {
      if (this == MARIADB) {
        insert.setString(1, row.id().toString());
      } else {
        insert.setObject(1, row.id());
      }
      insert.setString(2, row.destination());
      insert.setString(3, row.orderingKey());
      insert.setBytes(4, row.payload());
      insert.setString(5, row.contentType());
      insert.setString(6, row.headers());
      insert.executeUpdate();
      if (!c.getAutoCommit()) {
        c.commit();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Gives an entry of the prefix's outbox a {@code seq} above every other row's, its {@code key_seq} unchanged: the
   * state MariaDB/MySQL's writers can leave (they number {@code seq} outside the key's lock).
   */
  /**
   * Makes every claim on the prefix's tables fail at its write, after whatever its transaction ran before it (a leased
   * row's token, or a leased batch's row, refused by a trigger), or lets claims succeed again: for the contract test of
   * a failed step ({@code DeliveredAndClaimedContract}). Completions still apply: they clear tokens and trim or delete
   * batch rows, which the triggers let through.
   */
  void refuseClaims(String prefix, boolean refuse) {
    TableNames names = TableNames.withPrefix(prefix);
    String outbox = names.qualified("outbox");
    String trigger = prefix + "refuse_claims";
    try (Connection c = pool(prefix).getConnection(); Statement s = c.createStatement()) {
      switch (this) {
        case POSTGRES -> {
          String claimTable = names.qualified("outbox_claim");
          if (refuse) {
            s.execute("CREATE OR REPLACE FUNCTION " + trigger + "() RETURNS trigger LANGUAGE plpgsql AS"
                + " $$ BEGIN RAISE EXCEPTION 'claims refused by the test'; END $$");
            s.execute("CREATE TRIGGER " + trigger + " BEFORE INSERT ON " + claimTable + " FOR EACH ROW EXECUTE"
                + " FUNCTION " + trigger + "()");
            s.execute("CREATE TRIGGER " + trigger + "_rows BEFORE UPDATE ON " + outbox + " FOR EACH ROW WHEN"
                + " (NEW.claim_token IS NOT NULL) EXECUTE FUNCTION " + trigger + "()");
          } else {
            s.execute("DROP TRIGGER IF EXISTS " + trigger + " ON " + claimTable);
            s.execute("DROP TRIGGER IF EXISTS " + trigger + "_rows ON " + outbox);
          }
        }
        case MARIADB -> s.execute(refuse
            ? "CREATE TRIGGER " + trigger + " BEFORE UPDATE ON " + outbox + " FOR EACH ROW BEGIN"
                + " IF NEW.claim_token IS NOT NULL THEN SIGNAL SQLSTATE '45000'"
                + " SET MESSAGE_TEXT = 'claims refused by the test'; END IF; END"
            : "DROP TRIGGER IF EXISTS " + trigger);
        case H2 -> s.execute(refuse
            ? "CREATE TRIGGER " + trigger + " BEFORE UPDATE ON " + outbox + " FOR EACH ROW"
                + " CALL 'dev.outbox4j.jdbc.RefuseClaimsTrigger'"
            : "DROP TRIGGER IF EXISTS " + trigger);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  void renumberAfterEveryEntry(String prefix, java.util.UUID id) {
    String table = TableNames.withPrefix(prefix).qualified("outbox");
    try (Connection c = pool(prefix).getConnection(); Statement max = c.createStatement();
        java.sql.PreparedStatement update = c.prepareStatement("UPDATE " + table + " SET seq = ? WHERE id = ?")) {
      long last;
      try (java.sql.ResultSet row = max.executeQuery("SELECT MAX(seq) FROM " + table)) {
        row.next();
        last = row.getLong(1);
      }
      update.setLong(1, last + 1_000);
      if (this == MARIADB) {
        update.setString(2, id.toString());
      } else {
        update.setObject(2, id);
      }
      if (update.executeUpdate() != 1) {
        throw new IllegalStateException("no entry " + id);
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static void truncate(DataSource dataSource, TableNames names) {
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
      s.execute("DELETE FROM " + names.qualified("outbox"));
      s.execute("DELETE FROM " + names.qualified("outbox_key"));
      s.execute("DELETE FROM " + names.qualified("outbox_destination_pause"));
      s.execute("DELETE FROM " + names.qualified("operator_audit"));
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
