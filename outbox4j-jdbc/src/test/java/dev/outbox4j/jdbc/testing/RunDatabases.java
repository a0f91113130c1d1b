package dev.outbox4j.jdbc.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One database of its own per test JVM on the shared PostgreSQL and MariaDB services, so any number of builds (two
 * clones, two worktrees, a benchmark) can run on one machine at once without touching each other's tables.
 *
 * <p>Why a database and not a table-name suffix: every fixture, every migration and every hand-written SQL statement
 * in the tests then stays as it is; only the URL changes. The name is {@code o4j_<epoch seconds>_<pid>_<random>}. The
 * database is created on first use, dropped by a shutdown hook when the JVM exits, and a run that was killed before its
 * hook ran leaves a database that the next run drops once it is older than {@link #STALE_AFTER} (no build lasts that
 * long).
 *
 * <p>Shipped in outbox4j-jdbc's test-jar; a module that uses it brings the drivers it needs (test scope). Thread-safe.
 */
public final class RunDatabases {
  /** Age after which a run database is presumed abandoned by a killed build and dropped. */
  public static final Duration STALE_AFTER = Duration.ofHours(6);

  private static final String POSTGRES_SERVER = "jdbc:postgresql://127.0.0.1:5432/";
  private static final String MARIADB_SERVER = "jdbc:mariadb://127.0.0.1:3306/";
  private static final Pattern RUN_NAME = Pattern.compile("o4j_(\\d+)_\\d+_[a-z0-9]+");

  private static final String NAME = "o4j_" + Instant.now().getEpochSecond() + "_" + ProcessHandle.current().pid() + "_"
      + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);

  private static boolean postgresCreated;
  private static boolean mariadbCreated;
  private static boolean hookInstalled;

  private RunDatabases() {}

  /** @return this JVM's database name, the same for PostgreSQL and MariaDB */
  public static String name() {
    return NAME;
  }

  /**
   * @return a URL of this JVM's own PostgreSQL database with {@code user=postgres} set; append further parameters
   *     with {@code &}
   */
  public static synchronized String postgresUrl() {
    if (!postgresCreated) {
      create(POSTGRES_SERVER + "postgres?user=postgres", true);
      postgresCreated = true;
    }
    return POSTGRES_SERVER + NAME + "?user=postgres";
  }

  /**
   * @return a URL of this JVM's own MariaDB database with {@code user=root} set; append further parameters with
   *     {@code &}
   */
  public static synchronized String mariadbUrl() {
    if (!mariadbCreated) {
      create(MARIADB_SERVER + "?user=root", false);
      mariadbCreated = true;
    }
    return MARIADB_SERVER + NAME + "?user=root";
  }

  private static void create(String serverUrl, boolean postgres) {
    try (Connection connection = DriverManager.getConnection(serverUrl);
        Statement statement = connection.createStatement()) {
      dropStale(statement, postgres);
      statement.execute("CREATE DATABASE " + NAME);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the run database " + NAME + " through " + serverUrl, e);
    }
    installHook();
  }

  private static void dropStale(Statement statement, boolean postgres) throws SQLException {
    List<String> stale = new ArrayList<>();
    String list = postgres ? "SELECT datname FROM pg_database WHERE datname LIKE 'o4j\\_%'" : "SHOW DATABASES LIKE 'o4j\\_%'";
    Instant cutoff = Instant.now().minus(STALE_AFTER);
    try (ResultSet rows = statement.executeQuery(list)) {
      while (rows.next()) {
        Matcher matcher = RUN_NAME.matcher(rows.getString(1).toLowerCase(Locale.ROOT));
        if (matcher.matches() && Instant.ofEpochSecond(Long.parseLong(matcher.group(1))).isBefore(cutoff)) {
          stale.add(rows.getString(1));
        }
      }
    }
    for (String name : stale) {
      drop(statement, name, postgres);
    }
  }

  private static void drop(Statement statement, String name, boolean postgres) throws SQLException {
    statement.execute(postgres ? "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)" : "DROP DATABASE IF EXISTS " + name);
  }

  private static void installHook() {
    if (hookInstalled) {
      return;
    }
    hookInstalled = true;
    Runtime.getRuntime().addShutdownHook(new Thread(RunDatabases::dropOwn, "outbox4j-run-databases-drop"));
  }

  private static synchronized void dropOwn() {
    if (postgresCreated) {
      dropQuietly(POSTGRES_SERVER + "postgres?user=postgres", true);
    }
    if (mariadbCreated) {
      dropQuietly(MARIADB_SERVER + "?user=root&connectTimeout=5000", false);
    }
  }

  private static void dropQuietly(String serverUrl, boolean postgres) {
    try (Connection connection = DriverManager.getConnection(serverUrl);
        Statement statement = connection.createStatement()) {
      if (!postgres) {
        statement.execute("SET SESSION lock_wait_timeout = 10");
      }
      drop(statement, NAME, postgres);
    } catch (SQLException e) {
      System.err.println("outbox4j tests: could not drop the run database " + NAME + " (a later run drops it once it is "
          + "stale): " + e.getMessage());
    }
  }
}
