package dev.outbox4j.quarkus.it;

import dev.outbox4j.Message;
import dev.outbox4j.quarkus.TransactionalOutbox;
import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/** The test application: saves an order (or counts one per key) and writes its message in the same transaction. */
@ApplicationScoped
public class Orders {
  @Inject AgroalDataSource dataSource;
  @Inject TransactionalOutbox outbox;

  void createTables(@Observes StartupEvent event) throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS test_order (id VARCHAR(64) PRIMARY KEY)");
      s.execute("CREATE TABLE IF NOT EXISTS test_key_counter (k VARCHAR(64) PRIMARY KEY, n BIGINT NOT NULL)");
    }
  }

  /**
   * Saves the order and writes its message; both commit together.
   *
   * @return the message's id
   */
  @Transactional
  public UUID place(String orderId, String destination) {
    insertOrder(orderId);
    Message message = message(destination, orderId, orderId);
    outbox.write(message);
    return message.id();
  }

  /** Saves the order and writes its message, then fails: the transaction rolls back. */
  @Transactional
  public void placeThenFail(String orderId, String destination) {
    place(orderId, destination);
    throw new IllegalStateException("the order " + orderId + " is refused after writing");
  }

  /**
   * Counts one more order of the key and writes the count as the message; the counter row stays locked until commit,
   * so the counts of one key commit in their order.
   *
   * @return the count written
   */
  @Transactional
  public long placeCounted(String key, String destination) {
    long n;
    try (Connection c = dataSource.getConnection(); PreparedStatement count = c.prepareStatement(
        "INSERT INTO test_key_counter (k, n) VALUES (?, 1) ON CONFLICT (k) DO UPDATE SET n = test_key_counter.n + 1"
            + " RETURNING n")) {
      count.setString(1, key);
      try (ResultSet row = count.executeQuery()) {
        row.next();
        n = row.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    outbox.write(message(destination, key, key + ":" + n));
    return n;
  }

  /** @return whether the order was saved */
  public boolean exists(String orderId) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement find = c.prepareStatement("SELECT 1 FROM test_order WHERE id = ?")) {
      find.setString(1, orderId);
      try (ResultSet row = find.executeQuery()) {
        return row.next();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void insertOrder(String orderId) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement insert = c.prepareStatement("INSERT INTO test_order (id) VALUES (?)")) {
      insert.setString(1, orderId);
      insert.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Message message(String destination, String key, String payload) {
    return Message.builder().withId(UUID.randomUUID()).withDestination(destination).withOrderingKey(key)
        .withPayload(payload).build();
  }
}
