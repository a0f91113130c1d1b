package dev.outbox4j.examples;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayResult;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.memory.InProcessTransport;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The outbox on a real database, embedded: create the schema in an in-memory H2 database, write order events in the
 * same JDBC transactions as the business rows (one transaction rolls back), then drain the outbox with a relay and an
 * in-process transport. Run with:
 *
 * <pre>mvn -q -pl examples -am compile exec:java -Dexec.mainClass=dev.outbox4j.examples.H2QuickStart</pre>
 */
public final class H2QuickStart {
  private H2QuickStart() {}

  public static void main(String[] args) throws SQLException {
    JdbcDataSource dataSource = new JdbcDataSource();
    dataSource.setURL("jdbc:h2:mem:quickstart;DB_CLOSE_DELAY=-1");

    JdbcOutboxStore store = JdbcOutboxStore.builder(dataSource).build();
    store.migrate(); // applies db/outbox4j/h2/V1__outbox.sql once; a no-op afterwards
    JdbcOutbox outbox = store.outbox();

    try (Connection connection = dataSource.getConnection(); Statement ddl = connection.createStatement()) {
      ddl.execute("CREATE TABLE orders (id INT PRIMARY KEY, state VARCHAR(20))");
      connection.setAutoCommit(false);
      for (int order = 1; order <= 3; order++) {
        for (String state : new String[] {"created", "paid", "shipped"}) {
          try (Statement business = connection.createStatement()) {
            business.execute("MERGE INTO orders KEY (id) VALUES (" + order + ", '" + state + "')");
          }
          outbox.write(connection, Message.builder()
              .withDestination("orders")
              .withOrderingKey("order-" + order)
              .withContentType("application/json")
              .withPayload("{\"order\":" + order + ",\"event\":\"" + state + "\"}")
              .build());
          connection.commit(); // the business row and its message commit together
        }
      }
      outbox.write(connection, Message.builder().withDestination("orders").withPayload("{\"never\":\"sent\"}").build());
      connection.rollback();
      System.out.println("rolled back a transaction: its message never existed");
    }

    System.out.println("waiting in the outbox: " + store.stats(java.time.Instant.now()).pending());
    InProcessTransport transport = InProcessTransport.consuming(message -> System.out.printf(
        "delivered  key=%-8s %s%n", message.orderingKey().orElse("-"),
        new String(message.payload(), StandardCharsets.UTF_8)));
    RelayResult result = Relay.builder(store, transport).build().drain(100);
    System.out.println("relay: " + result + "; left in the outbox: " + store.stats(java.time.Instant.now()).pending());
  }
}
