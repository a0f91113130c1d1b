package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run} mode end to end: rows inserted by plain SQL as docs/schema.md shows (another application, any
 * language), drained by a relay configured only by a YAML file, delivered over HTTP and over RabbitMQ, each key in
 * order.
 */
class RunModePostgresTest {
  private static final int KEYS = 5;
  private static final int PER_KEY = 20;

  @TempDir Path dir;

  @Test
  void rows_written_with_plain_sql_are_delivered_over_http_and_rabbitmq_in_key_order() throws Exception {
    String url = RunDatabases.postgresUrl();
    String queue = "o4j-relay-" + UUID.randomUUID();
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    List<String> fromRabbit = Collections.synchronizedList(new ArrayList<>());
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO);
        Connection rabbit = factory.newConnection("outbox4j-relay-test");
        Channel channel = rabbit.createChannel()) {
      channel.queueDeclare(queue, false, false, true, null);
      channel.basicConsume(queue, true, new DefaultConsumer(channel) {
        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
          fromRabbit.add(new String(body, StandardCharsets.UTF_8));
        }
      });
      Path file = dir.resolve("relay.yaml");
      Files.writeString(file, String.join("\n",
          "database:",
          "  url: '" + url + "'",
          "relay:",
          "  listen-notify: true",
          "  poll-max: 30s",
          "server:",
          "  port: 0",
          "transports:",
          "  webhooks:",
          "    type: http",
          "    endpoint:",
          "      orders: " + webhook.url("/orders"),
          "  broker:",
          "    type: rabbitmq",
          "    host: 127.0.0.1",
          "destinations:",
          "  orders: webhooks",
          "  /" + queue + ": broker",
          ""));
      assertThat(dev.outbox4j.relay.cli.CliRunner.run("migrate", "--config", file.toString())).isZero();
      PlainSqlRows.insert(url, "outbox4j_outbox", "orders", KEYS, PER_KEY / 2, 0, false);
      PlainSqlRows.insert(url, "outbox4j_outbox", "/" + queue, KEYS, PER_KEY / 2, 0, false);
      try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(),
          Map.of("OUTBOX4J_TRANSPORTS_BROKER_PASSWORD", "guest")))) {
        // the second half is written while the relay runs, each with the optional NOTIFY of docs/schema.md
        PlainSqlRows.insert(url, "outbox4j_outbox", "orders", KEYS, PER_KEY / 2, PER_KEY / 2, true);
        PlainSqlRows.insert(url, "outbox4j_outbox", "/" + queue, KEYS, PER_KEY / 2, PER_KEY / 2, true);
        await().atMost(Duration.ofSeconds(60)).until(() -> webhook.received().size() >= KEYS * PER_KEY
            && fromRabbit.size() >= KEYS * PER_KEY);
        await().atMost(Duration.ofSeconds(10)).until(() -> PlainSqlRows.rows(url, "outbox4j_outbox") == 0);
        // the relay counts a delivery once its completion is recorded, a moment after the row changes
        await().atMost(Duration.ofSeconds(10)).until(() -> runtime.deliveredCount() >= 2L * KEYS * PER_KEY);
        assertThat(runtime.deliveredCount()).isEqualTo(2L * KEYS * PER_KEY);
      }
      PlainSqlRows.assertKeyOrder(webhook.received(), KEYS, PER_KEY);
      PlainSqlRows.assertKeyOrder(new ArrayList<>(fromRabbit), KEYS, PER_KEY);
      assertThat(webhook.traceparents()).hasSize(KEYS * PER_KEY).containsOnly(PlainSqlRows.TRACEPARENT);
    }
  }

  @Test
  void with_the_notify_trigger_a_plain_sql_row_without_notify_wakes_a_relay_that_polls_every_ten_minutes_and_keys_numbered_at_insert_keep_their_order()
      throws Exception {
    String url = RunDatabases.postgresUrl();
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      Path file = dir.resolve("relay-trigger.yaml");
      Files.writeString(file, String.join("\n",
          "database:",
          "  url: '" + url + "'",
          "  table-prefix: trig_",
          "  notify-trigger: true",
          "  key-numbering: insert",
          "relay:",
          "  listen-notify: true",
          "  poll-min: 10m",
          "  poll-max: 10m",
          "server:",
          "  port: 0",
          "transports:",
          "  webhooks:",
          "    type: http",
          "    endpoint:",
          "      orders: " + webhook.url("/orders"),
          "destinations:",
          "  orders: webhooks",
          ""));
      assertThat(dev.outbox4j.relay.cli.CliRunner.output("migrate", "--config", file.toString()))
          .contains("installed the notify trigger on trig_outbox")
          .contains("trig_outbox numbers keyed entries at insert (database.key-numbering)");
      PlainSqlRows.insert(url, "trig_outbox", "orders", KEYS, 1, 0, false);
      try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
        // The rows written before the start are delivered by the relay's first passes; then it listens, and its
        // next poll is ten minutes away: only a notification can make it deliver rows written after that, and these
        // carry no NOTIFY of their own. (With notify-trigger off this test waits out its 60 s and fails.)
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.deliveredCount() >= KEYS
            && listening(url, "trig_outbox"));
        PlainSqlRows.insert(url, "trig_outbox", "orders", KEYS, 1, 1, false);
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.deliveredCount() >= 2L * KEYS);
      }
      PlainSqlRows.assertKeyOrder(webhook.received(), KEYS, 2);
    }
  }

  /** @return whether some session's last statement was the LISTEN on {@code channel} (the wake-up listener's) */
  private static boolean listening(String url, String channel) throws java.sql.SQLException {
    try (java.sql.Connection connection = java.sql.DriverManager.getConnection(url);
        java.sql.PreparedStatement statement = connection.prepareStatement(
            "SELECT count(*) FROM pg_stat_activity WHERE query = ?")) {
      statement.setString(1, "LISTEN \"" + channel + "\"");
      try (java.sql.ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1) > 0;
      }
    }
  }
}
