package dev.outbox4j.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * A data source over a real pool that reads, inside each claim transaction just before it commits, what the
 * transaction runs under (isolation, commit durability), with a query of the test's choosing on the same connection.
 * A claim transaction is one that prepared a statement naming {@code marker} (the claim's locking statement). Nothing
 * is faked: every call goes to the pool's connection. Thread-safe.
 */
final class SessionProbe {
  /**
   * A probe that asks the JDBC connection for its isolation level instead of the database: for H2, whose
   * {@code INFORMATION_SCHEMA.SESSIONS} fails now and then while other sessions start transactions (an H2 2.4 race:
   * a {@code NullPointerException} in {@code getBlockerId}); H2 is embedded, so the connection answers from the
   * session itself.
   */
  static final String JDBC_ISOLATION = "jdbc:transaction-isolation";

  /** What {@link #seen} holds for a probe that answered no row. */
  static final String NO_ROW = "no row";

  private final DataSource pool;
  private final String marker;
  private final String probe;
  private final List<String> seen = new CopyOnWriteArrayList<>();

  /**
   * @param pool the real pool
   * @param marker text only a claim transaction's statements contain
   * @param probe a query of one row and one column, run in the claim's transaction before its commit
   */
  SessionProbe(DataSource pool, String marker, String probe) {
    this.pool = pool;
    this.marker = marker;
    this.probe = probe;
  }

  /** @return what each claim transaction so far answered to the probe */
  List<String> seen() {
    return List.copyOf(seen);
  }

  DataSource dataSource() {
    return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
        (proxy, method, args) -> {
          Object result = invoke(pool, method, args);
          return result instanceof Connection connection && method.getName().equals("getConnection")
              ? probed(connection) : result;
        });
  }

  private Connection probed(Connection target) {
    boolean[] claim = {false};
    return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "prepareStatement" -> claim[0] |= String.valueOf(args[0]).contains(marker);
            case "commit" -> {
              if (claim[0] && !target.getAutoCommit() && probe.equals(JDBC_ISOLATION)) {
                seen.add(isolationName(target.getTransactionIsolation()));
              } else if (claim[0] && !target.getAutoCommit()) {
                try (Statement statement = target.createStatement();
                    ResultSet result = statement.executeQuery(probe)) {
                  seen.add(result.next() ? result.getString(1) : NO_ROW);
                }
              }
              claim[0] = false;
            }
            case "rollback" -> claim[0] = false;
            default -> { }
          }
          return invoke(target, method, args);
        });
  }

  private static String isolationName(int level) {
    return switch (level) {
      case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ UNCOMMITTED";
      case Connection.TRANSACTION_READ_COMMITTED -> "READ COMMITTED";
      case Connection.TRANSACTION_REPEATABLE_READ -> "REPEATABLE READ";
      case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
      default -> "level " + level;
    };
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
