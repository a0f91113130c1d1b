package dev.outbox4j.jdbc.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Bounds every statement a component runs on its own connections, so no call can wait on the database for ever. Not
 * API.
 *
 * <p>Why two bounds: a query timeout ({@link Statement#setQueryTimeout}) makes the server cancel a statement that runs
 * too long, but the driver delivers that cancel over a new connection and then still waits for the server's answer, so
 * on a half-open connection (a failover without a TCP reset, a stalled network path) it never returns. A network
 * timeout ({@link Connection#setNetworkTimeout}) bounds the driver's socket reads themselves; it is set a margin above
 * the query timeout, so that when the network is healthy the server's cancel answers first and the connection stays
 * usable. Connection pools (HikariCP among them) restore the network timeout when the connection is returned. Drivers
 * without network timeouts (H2 embedded) get the query timeout alone.
 *
 * <p>Immutable and thread-safe.
 */
public final class StatementTimeouts {
  /** How much longer than the query timeout the network timeout is, in seconds. */
  public static final int NETWORK_MARGIN_SECONDS = 5;

  /** Runs the driver's timeout work on the calling thread; the drivers in use only arm a socket timeout with it. */
  private static final Executor DIRECT = Runnable::run;

  private final Duration queryTimeout;
  private final int querySeconds;
  private final int networkMillis;

  /** @param queryTimeout the bound of one statement; {@link Duration#ZERO} for none */
  public StatementTimeouts(Duration queryTimeout) {
    this.queryTimeout = Objects.requireNonNull(queryTimeout, "queryTimeout");
    if (queryTimeout.isNegative()) {
      throw new IllegalArgumentException("queryTimeout must not be negative, was " + queryTimeout);
    }
    long seconds = queryTimeout.toSeconds() + (queryTimeout.toNanosPart() > 0 ? 1 : 0);
    this.querySeconds = (int) Math.min(Integer.MAX_VALUE, seconds);
    this.networkMillis = queryTimeout.isZero() ? 0
        : (int) Math.min(Integer.MAX_VALUE, (seconds + NETWORK_MARGIN_SECONDS) * 1000);
  }

  /** @return the bound of one statement; {@link Duration#ZERO} for none */
  public Duration queryTimeout() {
    return queryTimeout;
  }

  /**
   * Arms the network timeout of a borrowed connection and returns a view of it whose statements all carry the query
   * timeout. Closing the view closes the connection.
   *
   * @param connection a connection the caller borrowed and will close
   * @return the bounded view, or the connection itself when there is no bound
   * @throws SQLException if the driver fails
   */
  public Connection bound(Connection connection) throws SQLException {
    if (querySeconds == 0) {
      return connection;
    }
    try {
      connection.setNetworkTimeout(DIRECT, networkMillis);
    } catch (SQLFeatureNotSupportedException | UnsupportedOperationException e) {
      // an embedded database (H2) has no network; the query timeout still applies
    }
    return (Connection) Proxy.newProxyInstance(StatementTimeouts.class.getClassLoader(),
        new Class<?>[] {Connection.class}, new Bounded(connection, querySeconds));
  }

  /** Sets the query timeout on every statement the connection creates; delegates everything else. */
  private record Bounded(Connection target, int seconds) implements InvocationHandler {
    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      Object result;
      try {
        result = method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      if (result instanceof Statement statement) {
        statement.setQueryTimeout(seconds);
      }
      return result;
    }
  }
}
