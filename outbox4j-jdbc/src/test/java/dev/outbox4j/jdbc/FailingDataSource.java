package dev.outbox4j.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source whose connections refuse the n-th statement execution or commit (counted over all of them), once, with
 * an {@link SQLException} and without sending it: a database that fails a step of a unit of work.
 */
final class FailingDataSource implements DataSource {
  private final DataSource delegate;
  private final int failAt;
  private final AtomicInteger calls = new AtomicInteger();

  FailingDataSource(DataSource delegate, int failAt) {
    this.delegate = delegate;
    this.failAt = failAt;
  }

  /** @return whether the failure has happened */
  boolean failed() {
    return calls.get() >= failAt;
  }

  private void step(String what) throws SQLException {
    if (calls.incrementAndGet() == failAt) {
      throw new SQLException("refused by the test: " + what + " (step " + failAt + ")", "08006");
    }
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return wrap(delegate.getConnection(user, password));
  }

  private Connection wrap(Connection connection) {
    return proxy(Connection.class, connection, (proxy, method, args) -> {
      if (method.getName().equals("commit")) {
        step("commit");
      }
      Object result = invoke(connection, method, args);
      if (result instanceof PreparedStatement prepared) {
        return statement(PreparedStatement.class, prepared);
      }
      if (result instanceof Statement plain) {
        return statement(Statement.class, plain);
      }
      return result;
    });
  }

  private <S extends Statement> S statement(Class<S> type, S statement) {
    return proxy(type, statement, (proxy, method, args) -> {
      if (method.getName().startsWith("execute")) {
        step(method.getName());
      }
      return invoke(statement, method, args);
    });
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> T proxy(Class<T> type, T target, InvocationHandler handler) {
    return (T) Proxy.newProxyInstance(FailingDataSource.class.getClassLoader(), new Class<?>[] {type}, handler);
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() {
    return Logger.getGlobal();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}
