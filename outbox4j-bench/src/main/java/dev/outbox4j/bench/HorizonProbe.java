package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What the horizon runs read from and do to one database, PostgreSQL or MariaDB: its outbox tables recreated, the
 * bystander's table, the sizes (and, on PostgreSQL, dead tuples) of every outbox table and index, and how far the
 * oldest transaction holds back clean-up (PostgreSQL: the age of the oldest {@code xmin} in transactions; MariaDB:
 * InnoDB's history list length, the undo records purge has not removed).
 */
abstract class HorizonProbe {
  /** The outbox tables' prefix. */
  static final String PREFIX = "bench_hz_";
  /** The bystander's table: not an outbox table, so not under {@link #PREFIX}. */
  static final String BYSTANDER = "bench_hzb_accounts";
  static final int BYSTANDER_ROWS = 100_000;

  /** One table or index of the outbox. {@code deadTuples} is -1 where the database does not count them. */
  record Relation(String name, boolean index, long deadTuples, long bytes) {}

  /** The clean-up horizon: {@code age} in the database's unit ({@link #horizonUnit}). */
  record Horizon(double age, double oldestTransactionSeconds) {}

  final HorizonOptions options;
  /** What {@link Horizon#age()} counts, for labels. */
  final String horizonUnit;
  private final String versionQuery;

  /** @param versionQuery a query of one text: the database's version and the settings that matter here */
  HorizonProbe(HorizonOptions options, String horizonUnit, String versionQuery) {
    this.options = options;
    this.horizonUnit = horizonUnit;
    this.versionQuery = versionQuery;
  }

  static HorizonProbe of(HorizonOptions options) {
    return options.db().equals("mariadb") ? new MariaDb(options) : new Postgres(options);
  }

  /** @return the database's version line */
  String version(Connection connection) throws SQLException {
    return single(connection, versionQuery);
  }

  /** Drops the outbox tables (the store's migrations create them again). */
  abstract void dropOutbox() throws SQLException;

  /** Creates and fills the bystander's table, {@value #BYSTANDER_ROWS} accounts, if it is not there yet. */
  abstract void createBystander() throws SQLException;

  abstract List<Relation> relations(Connection connection) throws SQLException;

  abstract Horizon horizon(Connection connection) throws SQLException;

  /** Sets what the holding session needs so that nothing but the run ends its transaction. */
  void prepareHolder(Connection connection) throws SQLException {}

  /** Applies the options' table settings to the freshly migrated outbox tables. */
  void tune() throws SQLException {}

  /** @return what the database did to the outbox tables during the run (vacuums, updates), in words; "" if nothing */
  String activity(Connection connection) throws SQLException {
    return "";
  }

  /** @return a pool of {@code size} connections, all opened before this returns */
  HikariDataSource pool(String name, int size, boolean autoCommit) throws SQLException {
    return BenchDatabase.pool(options.url(), options.user(), "hz-" + name, size, autoCommit, null);
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(options.url(), options.user(), "");
  }

  void execute(String... statements) throws SQLException {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  /** PostgreSQL: {@code pg_stat_user_tables}, {@code pg_table_size}, {@code pg_stat_activity}. */
  static final class Postgres extends HorizonProbe {
    Postgres(HorizonOptions options) {
      super(options, "age of the oldest xmin (transactions)", "SELECT split_part(version(), ' on ', 1)"
          + " || ', autovacuum ' || current_setting('autovacuum')"
          + " || ', autovacuum_naptime ' || current_setting('autovacuum_naptime')"
          + " || ', autovacuum_vacuum_scale_factor ' || current_setting('autovacuum_vacuum_scale_factor')");
    }

    @Override
    void dropOutbox() throws SQLException {
      execute("DROP TABLE IF EXISTS " + PREFIX + "outbox, " + PREFIX + "outbox_key, " + PREFIX + "outbox_claim, "
          + PREFIX + "outbox_destination_pause, " + PREFIX + "operator_audit, " + PREFIX + "schema_version CASCADE",
          "DROP FUNCTION IF EXISTS " + PREFIX + "outbox_assign_key_seq() CASCADE",
          "DROP FUNCTION IF EXISTS " + PREFIX + "outbox_claim_last_seq(bigint[]) CASCADE");
    }

    @Override
    void createBystander() throws SQLException {
      execute("CREATE TABLE IF NOT EXISTS " + BYSTANDER + " (id int PRIMARY KEY, owner text NOT NULL,"
              + " balance bigint NOT NULL)",
          "INSERT INTO " + BYSTANDER + " SELECT g, 'owner-' || g, g * 7 FROM generate_series(1, " + BYSTANDER_ROWS
              + ") g ON CONFLICT (id) DO NOTHING",
          "VACUUM ANALYZE " + BYSTANDER);
    }

    @Override
    List<Relation> relations(Connection connection) throws SQLException {
      List<Relation> found = new ArrayList<>();
      try (Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT c.relname, c.relkind = 'i', coalesce(s.n_dead_tup, -1),"
              + " CASE WHEN c.relkind = 'i' THEN pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END"
              + " FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid"
              + " WHERE c.relnamespace = to_regnamespace(current_schema()) AND c.relkind IN ('r', 'i')"
              + " AND c.relname LIKE '" + PREFIX.replace("_", "\\_") + "%'"
              + " ORDER BY c.relkind DESC, c.relname")) {
        while (rows.next()) {
          found.add(new Relation(rows.getString(1), rows.getBoolean(2), rows.getLong(3), rows.getLong(4)));
        }
      }
      return found;
    }

    @Override
    Horizon horizon(Connection connection) throws SQLException {
      // The backends of this database hold back the clean-up of its tables (PostgreSQL 14+ keeps a horizon per
      // database for them); a backend's xid counts as well as its snapshot's xmin.
      try (Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT coalesce(max(greatest(age(backend_xmin), age(backend_xid))),"
              + " 0), coalesce(extract(epoch FROM max(clock_timestamp() - xact_start)), 0) FROM pg_stat_activity"
              + " WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
        rows.next();
        return new Horizon(rows.getDouble(1), rows.getDouble(2));
      }
    }

    @Override
    void prepareHolder(Connection connection) throws SQLException {
      try (Statement statement = connection.createStatement()) {
        statement.execute("SET idle_in_transaction_session_timeout = 0");
      }
    }

    @Override
    void tune() throws SQLException {
      if (options.vacuumThreshold() != 0) {
        for (String table : List.of("outbox", "outbox_key", "outbox_claim")) {
          execute("ALTER TABLE " + PREFIX + table + " SET (autovacuum_vacuum_scale_factor = 0,"
              + " autovacuum_vacuum_threshold = " + options.vacuumThreshold() + ", autovacuum_vacuum_cost_delay = 0)");
        }
      }
      if (options.fillfactor() != 0) {
        execute("ALTER TABLE " + PREFIX + "outbox SET (fillfactor = " + options.fillfactor() + ")");
      }
    }

    @Override
    String activity(Connection connection) throws SQLException {
      StringBuilder words = new StringBuilder();
      try (Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT relname, autovacuum_count, n_tup_upd, n_tup_hot_upd"
              + " FROM pg_stat_user_tables WHERE relname IN ('" + PREFIX + "outbox', '" + PREFIX + "outbox_key', '"
              + PREFIX + "outbox_claim') ORDER BY relname")) {
        while (rows.next()) {
          words.append(words.isEmpty() ? "" : "; ").append(HorizonReport.format("%s: %d autovacuums, %,d updates"
              + " (%,d HOT)", rows.getString(1), rows.getLong(2), rows.getLong(3), rows.getLong(4)));
        }
      }
      return words.toString();
    }
  }

  /** MariaDB: {@code information_schema.TABLES}, {@code mysql.innodb_index_stats}, the history list length. */
  static final class MariaDb extends HorizonProbe {
    MariaDb(HorizonOptions options) {
      super(options, "history list length (undo records)",
          "SELECT concat('MariaDB ', version(), ', innodb_purge_threads ', @@innodb_purge_threads)");
    }

    @Override
    void dropOutbox() throws SQLException {
      for (String table : List.of("outbox", "outbox_key", "outbox_claim", "outbox_destination_pause",
          "operator_audit", "schema_version")) {
        execute("DROP TABLE IF EXISTS " + PREFIX + table);
      }
    }

    @Override
    void createBystander() throws SQLException {
      execute("CREATE TABLE IF NOT EXISTS " + BYSTANDER + " (id int PRIMARY KEY, owner varchar(40) NOT NULL,"
              + " balance bigint NOT NULL) ENGINE=InnoDB",
          "INSERT IGNORE INTO " + BYSTANDER + " SELECT seq, concat('owner-', seq), seq * 7 FROM seq_1_to_"
              + BYSTANDER_ROWS,
          "ANALYZE TABLE " + BYSTANDER);
    }

    @Override
    List<Relation> relations(Connection connection) throws SQLException {
      List<Relation> found = new ArrayList<>();
      String like = "'" + PREFIX.replace("_", "\\_") + "%'";
      try (Statement statement = connection.createStatement()) {
        try (ResultSet rows = statement.executeQuery("SELECT table_name, data_length FROM information_schema.TABLES"
            + " WHERE table_schema = DATABASE() AND table_name LIKE " + like + " ORDER BY table_name")) {
          while (rows.next()) {
            found.add(new Relation(rows.getString(1), false, -1, rows.getLong(2)));
          }
        }
        try (ResultSet rows = statement.executeQuery("SELECT concat(table_name, '.', index_name),"
            + " stat_value * @@innodb_page_size FROM mysql.innodb_index_stats WHERE database_name = DATABASE()"
            + " AND stat_name = 'size' AND table_name LIKE " + like + " ORDER BY 1")) {
          while (rows.next()) {
            found.add(new Relation(rows.getString(1), true, -1, rows.getLong(2)));
          }
        }
      }
      return found;
    }

    @Override
    Horizon horizon(Connection connection) throws SQLException {
      double history;
      try (Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'")) {
        rows.next();
        history = rows.getDouble(2);
      }
      return new Horizon(history, Double.parseDouble(single(connection, "SELECT coalesce(max(timestampdiff(SECOND,"
          + " trx_started, now())), 0) FROM information_schema.INNODB_TRX")));
    }
  }

  static String single(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getString(1);
    }
  }
}
