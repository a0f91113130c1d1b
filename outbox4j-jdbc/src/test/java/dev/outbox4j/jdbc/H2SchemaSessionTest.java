package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * H2 2.4 compiles some DDL expressions (an {@code IN} list, or an {@code OR} it turns into one) into a constant set
 * bound to the session that ran the DDL: once that connection closes, every insert fails with "The database has been
 * closed". Pooled tests keep the migrating connection open, so they cannot see it; a Spring context restart or a pool
 * retiring its connections can. Here every connection is new and closed after one use, as with an unpooled data
 * source. (Found by the Spring Boot starter's tests, whose H2 is the version Spring Boot manages.)
 */
class H2SchemaSessionTest {

  @Test
  void the_schema_keeps_working_after_the_connection_that_migrated_it_is_closed() throws Exception {
    JdbcDataSource unpooled = new JdbcDataSource();
    unpooled.setURL("jdbc:h2:mem:session-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    JdbcOutboxStore.builder(unpooled).build().migrate();

    JdbcOutbox outbox = JdbcOutbox.builder().build();
    try (Connection connection = unpooled.getConnection()) {
      connection.setAutoCommit(false);
      outbox.write(connection, Message.builder().withDestination("audit").build());
      outbox.write(connection, Message.builder().withDestination("orders").withOrderingKey("order-1").build());
      connection.commit();
    }

    JdbcOutboxStore store = JdbcOutboxStore.builder(unpooled).build();
    assertThat(store.claim(10, Instant.now(), Duration.ofSeconds(30))).hasSize(2);
  }
}
