package dev.outbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spring.actuate.OutboxHealthIndicator;
import dev.outbox4j.spring.app.OrderService;
import dev.outbox4j.spring.app.OrdersTestApplication;
import dev.outbox4j.testkit.TcpProxy;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The {@code outbox4j} health indicator against PostgreSQL reached through a {@link TcpProxy}: DOWN while the
 * database is cut off, UP again once it is back, OUT_OF_SERVICE when the lag passes {@code outbox4j.health.max-lag}.
 */
@SpringBootTest(classes = OrdersTestApplication.class,
    properties = {"outbox4j.tables.prefix=sbh_", "outbox4j.relay.enabled=false", "outbox4j.health.max-lag=300ms",
        "spring.datasource.hikari.connection-timeout=1000", "spring.datasource.hikari.validation-timeout=500",
        "spring.datasource.hikari.maximum-pool-size=2"})
class OutboxHealthTest {
  private static final TcpProxy PROXY = TcpProxy.start("127.0.0.1", 5432);

  @Autowired
  OutboxHealthIndicator health;
  @Autowired
  OrderService orders;

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url",
        () -> RunDatabases.postgresUrl().replace("127.0.0.1:5432", "127.0.0.1:" + PROXY.port()));
  }

  @AfterAll
  static void closeProxy() {
    PROXY.close();
  }

  @Test
  void health_goes_down_when_the_database_is_cut_off_and_up_when_it_is_back_then_out_of_service_on_lag() {
    assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);

    PROXY.cut();
    await().atMost(Duration.ofSeconds(15)).until(() -> health.health(true).getStatus(), Status.DOWN::equals);

    PROXY.restore();
    await().atMost(Duration.ofSeconds(15)).until(() -> health.health(true).getStatus(), Status.UP::equals);

    orders.send("nobody/relays/this");
    await().atMost(Duration.ofSeconds(15))
        .until(() -> health.health(true).getStatus(), Status.OUT_OF_SERVICE::equals);
    assertThat(health.health(true).getDetails()).containsEntry("pending", 1L)
        .containsEntry("waiting", 1L).containsEntry("blocked", 0L).containsKey("lag");
  }
}
