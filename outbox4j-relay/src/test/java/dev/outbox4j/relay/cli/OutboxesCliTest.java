package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.jdbc.testing.RunDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator commands on a configuration with several outboxes: each takes {@code --outbox NAME} and acts on that
 * outbox alone, requires it when the file names several, and {@code status} without it summarises every outbox, one
 * that cannot be read included.
 */
class OutboxesCliTest {
  @TempDir Path dir;

  @Test
  void every_command_acts_on_the_outbox_it_names_and_status_without_one_summarises_them_all() throws Exception {
    String url = RunDatabases.postgresUrl();
    Path file = dir.resolve("relay.yaml");
    Files.writeString(file, String.join("\n",
        "transports:",
        "  hooks:",
        "    type: http",
        "    endpoint.orders: http://127.0.0.1:9/orders",
        "destinations:",
        "  orders: hooks",
        "outboxes:",
        "  billing:",
        "    database:",
        "      url: '" + url + "'",
        "      table-prefix: clib_",
        "  shipping:",
        "    database:",
        "      url: '" + url + "'",
        "      table-prefix: clis_",
        ""));
    assertThat(CliRunner.output("migrate", "--config", file.toString(), "--outbox", "billing")).contains("clib_");
    assertThat(CliRunner.output("migrate", "--config", file.toString(), "--outbox", "shipping")).contains("clis_");
    write(url, "clib_", 3);
    write(url, "clis_", 5);

    CliRun refused = CliRun.of("quarantined", "--config", file.toString());
    assertThat(refused.code()).isEqualTo(ExitCodes.CONFIG);
    assertThat(refused.err()).contains("'--outbox' is required: this configuration has several outboxes (billing,"
        + " shipping");
    CliRun unknown = CliRun.of("status", "--config", file.toString(), "--outbox", "stock");
    assertThat(unknown.code()).isEqualTo(ExitCodes.CONFIG);
    assertThat(unknown.err()).contains("'outboxes.stock' names no outbox of this configuration");

    assertThat(CliRunner.output("status", "--config", file.toString(), "--outbox", "shipping"))
        .contains("waiting      5");
    String summary = CliRunner.output("status", "--config", file.toString());
    assertThat(summary).containsPattern("billing +3 +0 +0 +0 ").containsPattern("shipping +5 +0 +0 +0 ");
    assertThat(CliRunner.output("status", "--config", file.toString(), "--json"))
        .contains("{\"outbox\":\"billing\",\"waiting\":3,").contains("{\"outbox\":\"shipping\",\"waiting\":5,");

    assertThat(CliRunner.output("pause", "--config", file.toString(), "--outbox", "shipping", "--destination",
        "orders", "--reason", "maintenance")).contains("orders");
    assertThat(CliRunner.output("status", "--config", file.toString())).containsPattern("shipping .* orders")
        .doesNotContainPattern("billing .* orders");
    assertThat(CliRunner.output("audit", "--config", file.toString(), "--outbox", "shipping"))
        .startsWith("outbox shipping").contains("pause");
    assertThat(CliRunner.output("audit", "--config", file.toString(), "--outbox", "billing"))
        .doesNotContain("pause");

    // one outbox that cannot be read is one row saying so, and the exit code says it
    Files.writeString(file, Files.readString(file) + String.join("\n",
        "  stock:",
        "    database:",
        "      url: 'jdbc:postgresql://127.0.0.1:1/none?connectTimeout=1'",
        ""));
    CliRun partly = CliRun.of("status", "--config", file.toString());
    assertThat(partly.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(partly.out()).containsPattern("billing +3 ").containsPattern("stock +unreadable: ");
  }

  private static void write(String url, String prefix, int count) throws Exception {
    JdbcOutbox outbox = JdbcOutbox.builder().withTableNames(new TableNames(null, prefix)).build();
    try (Connection connection = DriverManager.getConnection(url)) {
      for (int i = 0; i < count; i++) {
        outbox.write(connection, Message.builder().withDestination("orders").withOrderingKey("k" + i)
            .withPayload("p" + i).build());
      }
    }
  }
}
