package dev.outbox4j.relay.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.relay.cli.CliRunner;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoTest {
  @TempDir Path dir;

  private long orders(String url) throws Exception {
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COALESCE(MAX(id), 0) FROM demo_orders")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  @Test
  void the_demo_delivers_signed_webhooks_in_order_and_a_second_run_continues_with_the_same_database()
      throws Exception {
    long lastOrder;
    String url;
    try (Demo demo = Demo.start(0, dir, 50, Clock.systemUTC())) {
      url = demo.databaseUrl();
      await().atMost(Duration.ofSeconds(60)).until(() -> demo.sink().received() >= 50
          && demo.producer().rolledBack() > 0 && demo.sink().refused() > 0);
      assertThat(demo.sink().badSignatures()).isZero();
      assertThat(demo.sink().outOfOrder()).isZero();
      assertThat(demo.describe()).contains(demo.runtime().baseUrl() + "/#token=" + demo.runtime().adminToken()
          .value(), "/metrics", demo.hint());
      // not run from the jar: the hint names the jar where the build puts it, relative to the repository root
      assertThat(demo.hint()).isEqualTo("java -jar outbox4j-relay/target/outbox4j-relay.jar status --url '" + url + "'");
      assertThat(Path.of("").toAbsolutePath().getParent().resolve("outbox4j-relay/pom.xml")).exists();
      // the command it prints works while the demo runs
      assertThat(CliRunner.run("status", "--url", url)).isZero();
      lastOrder = orders(url);
      assertThat(lastOrder).isPositive();
    }
    try (Demo again = Demo.start(0, dir, 50, Clock.systemUTC())) {
      await().atMost(Duration.ofSeconds(60)).until(() -> again.sink().received() >= 20);
      long before = lastOrder;
      await().atMost(Duration.ofSeconds(60)).until(() -> orders(url) > before);
      assertThat(again.sink().outOfOrder()).isZero();
      // the operator commands work on the running demo's database from outside
      assertThat(CliRunner.run("status", "--url", url)).isZero();
    }
  }
}
