package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxException;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.TcpProxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A stalled (half-open) connection on MariaDB: the store's timeouts end the call. */
class MariaDbFaultsTest {
  private static final String PREFIX = "mdbfault_";

  @Test
  void a_claim_on_a_stalled_connection_fails_within_the_query_timeout_instead_of_hanging() throws Exception {
    TestDatabase.MARIADB.emptyStore(PREFIX, Clock.systemUTC(), Retention.deleteOnDelivery())
        .enqueue(Message.builder().withDestination("d").build());
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", 3306);
        Connection held = DriverManager.getConnection(
            RunDatabases.mariadbUrl().replace("127.0.0.1:3306", "127.0.0.1:" + proxy.port()))) {
      JdbcOutboxStore store = JdbcOutboxStore.builder(OneConnection.dataSource(held)).withTablePrefix(PREFIX)
          .withQueryTimeout(Duration.ofSeconds(1)).build();
      assertThat(store.stats(Instant.now()).pending()).isEqualTo(1);

      proxy.stall();
      long started = System.nanoTime();
      assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThatThrownBy(
          () -> store.claim(10, Instant.now(), Duration.ofSeconds(30))).isInstanceOf(OutboxException.class));

      // the network timeout (query timeout 1 s + 5 s) ends the read on the silent socket
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1 + 5 + 5));
    }
  }
}
