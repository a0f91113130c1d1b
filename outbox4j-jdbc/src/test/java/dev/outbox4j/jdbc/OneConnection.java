package dev.outbox4j.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * A data source that hands out one already open physical connection (closing it is ignored), so a test controls
 * exactly which connection a store's calls run on: no pool validation or reconnect hides what the store itself does.
 */
final class OneConnection {
  private OneConnection() {}

  static DataSource dataSource(Connection held) {
    Connection shared = (Connection) Proxy.newProxyInstance(OneConnection.class.getClassLoader(),
        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
          if (method.getName().equals("close")) {
            return null; // kept open for the next call
          }
          try {
            return method.invoke(held, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    return (DataSource) Proxy.newProxyInstance(OneConnection.class.getClassLoader(),
        new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
          if (method.getName().equals("getConnection")) {
            return shared;
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }
}
