package dev.outbox4j.bench;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.jdbc.testing.RunDatabases;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * Checks that the harness measures what it claims to: the drains really retire every row, and the CPU meter really
 * sees work done by our PostgreSQL backends; the broker drains really reach the broker (Kafka in-process, RabbitMQ
 * and NATS JetStream on their usual ports); bad arguments fail the command line. No timing is asserted.
 */
class BenchHarnessTest {
  private final BenchOptions options = BenchOptions.parse(
      new String[] {"--n", "1000", "--url", RunDatabases.postgresUrl()});
  private final BenchDatabase database = new BenchDatabase(options);

  @Test
  void ceiling_drain_by_delete_retires_every_pre_inserted_row() throws Exception {
    try (CeilingDrain ceiling =
        new CeilingDrain(database, RawOutboxTable.Completion.DELETE, CeilingDrain.Mode.LOCKED)) {
      ceiling.prepare(1_200);
      assertThat(database.count("bench_ceiling")).isEqualTo(1_200);

      Outcome outcome = ceiling.execute(1_200);

      assertThat(outcome.messages()).isEqualTo(1_200);
      assertThat(database.count("bench_ceiling")).isZero();
    }
  }

  @Test
  void ceiling_drain_by_update_leaves_every_row_delivered() throws Exception {
    try (CeilingDrain ceiling =
        new CeilingDrain(database, RawOutboxTable.Completion.UPDATE, CeilingDrain.Mode.LOCKED)) {
      ceiling.prepare(1_200);

      ceiling.execute(1_200);

      assertThat(countWhere("bench_ceiling", "status = 'DELIVERED'")).isEqualTo(1_200);
      assertThat(countWhere("bench_ceiling", "status = 'PENDING'")).isZero();
    }
  }

  @Test
  void leased_reference_drain_claims_and_deletes_every_row() throws Exception {
    try (CeilingDrain leased =
        new CeilingDrain(database, RawOutboxTable.Completion.DELETE, CeilingDrain.Mode.LEASED)) {
      leased.prepare(1_200);

      assertThat(leased.execute(1_200).messages()).isEqualTo(1_200);
      assertThat(database.count("bench_ceiling")).isZero();
    }
  }

  @Test
  void session_claim_drain_deletes_every_row_and_leaves_no_advisory_lock() throws Exception {
    try (CeilingDrain session =
        new CeilingDrain(database, RawOutboxTable.Completion.DELETE, CeilingDrain.Mode.SESSION)) {
      session.prepare(1_200);

      assertThat(session.execute(1_200).messages()).isEqualTo(1_200);
      assertThat(database.count("bench_ceiling")).isZero();
      assertThat(countWhere("pg_locks",
          "locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"))
          .isZero();
    }
  }

  @Test
  void outbox4j_drain_with_each_other_claim_strategy_retires_every_entry_and_leaves_no_advisory_lock()
      throws Exception {
    for (dev.outbox4j.jdbc.ClaimStrategy claims : ClaimNames.alternatives()) {
      try (Outbox4jDrain drain = new Outbox4jDrain(database, false, 2, false, false, claims)) {
        drain.prepare(2_000);

        assertThat(drain.execute(2_000).messages()).as(drain.id()).isEqualTo(2_000);
        assertThat(database.count("bench_o4j_outbox")).as(drain.id()).isZero();
      }
      assertThat(countWhere("pg_locks",
          "locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"))
          .as(claims.name()).isZero();
    }
  }

  @Test
  void outbox4j_drain_sends_and_retires_every_entry_of_the_ordered_backlog() throws Exception {
    try (Outbox4jDrain drain = new Outbox4jDrain(database, false, 1, true)) {
      drain.prepare(2_000);
      assertThat(countWhere("bench_o4j_outbox", "ordering_key IS NOT NULL")).isEqualTo(2_000);

      assertThat(drain.execute(2_000).messages()).isEqualTo(2_000);
      assertThat(database.count("bench_o4j_outbox")).isZero();
    }
  }

  @Test
  void one_commit_per_batch_retires_every_entry_in_both_modes() throws Exception {
    for (boolean keep : new boolean[] {false, true}) {
      try (Outbox4jDrain drain = new Outbox4jDrain(database, keep, 1, false).oneCommitPerBatch()) {
        assertThat(drain.id()).isEqualTo("outbox4j-drain-one-commit-" + (keep ? "keep" : "delete"));
        drain.prepare(1_700); // three full batches of 500 go by the combined step, the last one is partial

        assertThat(drain.execute(1_700).messages()).as(drain.id()).isEqualTo(1_700);
        assertThat(countWhere("bench_o4j_outbox", "status <> 'DELIVERED'")).as(drain.id()).isZero();
        assertThat(database.count("bench_o4j_outbox")).as(drain.id()).isEqualTo(keep ? 1_700 : 0);
      }
    }
  }

  @Test
  void the_prepared_statements_rows_let_pgjdbc_prepare_the_relays_statements_and_retire_every_entry()
      throws Exception {
    // The tables' migration ran on the pool's connections before (its own statements may be prepared there).
    try (Outbox4jDrain shipped = new Outbox4jDrain(database, false, 1, false)) {
      shipped.prepare(3_000);
      long before = preparedStatementsOf(shipped);
      assertThat(shipped.execute(3_000).messages()).isEqualTo(3_000);
      assertThat(preparedStatementsOf(shipped)).as("the default sends every statement unnamed").isEqualTo(before);
    }
    for (boolean keep : new boolean[] {false, true}) {
      try (Outbox4jDrain drain = new Outbox4jDrain(database, keep, 1, false).statementsPrepared()) {
        assertThat(drain.id()).isEqualTo("outbox4j-drain-prepared-" + (keep ? "keep" : "delete"));
        drain.prepare(3_000);
        long before = preparedStatementsOf(drain);

        assertThat(drain.execute(3_000).messages()).as(drain.id()).isEqualTo(3_000);
        assertThat(countWhere("bench_o4j_outbox", "status <> 'DELIVERED'")).as(drain.id()).isZero();
        assertThat(database.count("bench_o4j_outbox")).as(drain.id()).isEqualTo(keep ? 3_000 : 0);
        // six batches: from its fifth run on a connection, pgjdbc sends a statement as a named, prepared one
        assertThat(preparedStatementsOf(drain)).as(drain.id()).isGreaterThan(before);
      }
    }
  }

  /** The server-side prepared statements of the drain's connections, each of its pool's connections held at once. */
  private static long preparedStatementsOf(Outbox4jDrain drain) throws SQLException {
    long prepared = 0;
    for (HikariDataSource pool : drain.pools()) {
      List<Connection> held = new ArrayList<>();
      try {
        for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
          Connection connection = pool.getConnection();
          held.add(connection);
          try (Statement statement = connection.createStatement();
              ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_prepared_statements")) {
            rows.next();
            prepared += rows.getLong(1);
          }
        }
      } finally {
        for (Connection connection : held) {
          connection.close();
        }
      }
    }
    return prepared;
  }

  @Test
  void large_message_rows_store_their_payloads_uncompressed_and_retire_every_row() throws Exception {
    int size = 16 * 1024;
    try (CeilingDrain ceiling =
        new CeilingDrain(database, RawOutboxTable.Completion.DELETE, CeilingDrain.Mode.LOCKED, size)) {
      assertThat(ceiling.id()).isEqualTo("ceiling-delete-16k");
      assertThat(options.messagesFor(100_000, size)).as("--large-mib 256 over 16 KiB").isEqualTo(16_384);
      assertThat(options.messagesFor(1_000, size)).as("at most --n").isEqualTo(1_000);
      ceiling.prepare(300);
      assertThat(countWhere("bench_ceiling", "octet_length(payload) = " + size + " AND pg_column_size(payload) >= "
          + size)).isEqualTo(300);

      assertThat(ceiling.execute(300).messages()).isEqualTo(300);
      assertThat(database.count("bench_ceiling")).isZero();
    }
    try (Outbox4jDrain drain = new Outbox4jDrain(database, false, 1, false, false, ClaimNames.REFERENCE, size)) {
      assertThat(drain.id()).isEqualTo("outbox4j-drain-delete-16k");
      drain.prepare(300);
      assertThat(countWhere("bench_o4j_outbox", "octet_length(payload) = " + size)).isEqualTo(300);

      assertThat(drain.execute(300).messages()).isEqualTo(300);
      assertThat(database.count("bench_o4j_outbox")).isZero();
    }
  }

  @Test
  void kafka_baseline_and_relay_each_put_every_row_into_the_topic_and_retire_it() throws Exception {
    brokerDrainsDeliverEveryRow(KafkaBenchBroker::new);
  }

  @Test
  void rabbitmq_baseline_and_relay_each_put_every_row_into_the_queue_and_retire_it() throws Exception {
    brokerDrainsDeliverEveryRow(RabbitMqBenchBroker::new);
  }

  @Test
  void nats_baseline_and_relay_each_put_every_row_into_the_stream_and_retire_it() throws Exception {
    brokerDrainsDeliverEveryRow(NatsBenchBroker::new);
  }

  @Test
  void a_started_relay_with_two_workers_delivers_every_row_once_and_retires_it() throws Exception {
    NatsBenchBroker broker = new NatsBenchBroker();
    try (Outbox4jBrokerDrain relay = new Outbox4jBrokerDrain(database, broker, true, 2)) {
      relay.prepare(1_200);

      assertThat(relay.execute(1_200).messages()).isEqualTo(1_200);
      assertThat(database.count(Outbox4jBrokerDrain.TABLE_PREFIX + "outbox")).isZero();
      assertThat(broker.stored()).isEqualTo(1_200);
    }
  }

  @Test
  void webhook_baseline_and_relay_each_post_every_row_to_either_receiver_and_retire_it() throws Exception {
    String table = Outbox4jBrokerDrain.TABLE_PREFIX + "outbox";
    for (boolean keepAlive : new boolean[] {true, false}) {
      for (boolean keyed : new boolean[] {false, true}) {
        HttpBenchBroker rawReceiver = new HttpBenchBroker(keepAlive);
        try (RawBrokerDrain raw = new RawBrokerDrain(database, rawReceiver, keyed)) {
          raw.prepare(1_200);
          assertThat(raw.execute(1_200).messages()).isEqualTo(1_200);
          assertThat(database.count(table)).isZero();
          assertThat(rawReceiver.stored()).isEqualTo(1_200);
        }
        HttpBenchBroker relayReceiver = new HttpBenchBroker(keepAlive);
        try (Outbox4jBrokerDrain relay = Outbox4jBrokerDrain.started(database, relayReceiver, keyed)) {
          relay.prepare(1_200);
          assertThat(relay.execute(1_200).messages()).isEqualTo(1_200);
          assertThat(database.count(table)).isZero();
          assertThat(relayReceiver.stored()).isEqualTo(1_200);
        }
      }
    }
  }

  @Test
  void the_connector_puts_every_row_into_the_topic_once_and_retires_it_in_each_run() throws Exception {
    try (ConnectorDrain connector = new ConnectorDrain(database, 2)) {
      for (int run = 1; run <= 2; run++) { // the second run on a connector of its own, the first one's rows gone
        connector.prepare(1_200);
        assertThat(database.count(Outbox4jBrokerDrain.TABLE_PREFIX + "outbox")).isEqualTo(1_200);

        assertThat(connector.execute(1_200).messages()).isEqualTo(1_200);
        assertThat(database.count(Outbox4jBrokerDrain.TABLE_PREFIX + "outbox")).isZero();
        assertThat(committedRecords(connector.topic())).isEqualTo(1_200L * run);
      }
    }
  }

  /** @return the records a {@code read_committed} reader sees in the topic, up to its end, each message id once */
  private static long committedRecords(String topic) {
    java.util.Set<String> ids = new java.util.HashSet<>();
    long records = 0;
    try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> consumer =
        dev.outbox4j.kafka.EmbeddedKafka.shared().consumerFromStart(topic)) {
      var end = consumer.endOffsets(consumer.assignment(), java.time.Duration.ofSeconds(30));
      while (end.entrySet().stream().anyMatch(p -> consumer.position(p.getKey()) < p.getValue())) {
        for (var record : consumer.poll(java.time.Duration.ofSeconds(1))) {
          records++;
          var id = record.headers().lastHeader(dev.outbox4j.kafka.KafkaTransport.DEFAULT_MESSAGE_ID_HEADER);
          ids.add(id == null ? "no id " + records : new String(id.value(), UTF_8));
        }
      }
    }
    assertThat(ids).as("message ids").hasSize((int) records);
    return records;
  }

  @Test
  void rows_pick_scenarios_by_id_among_the_groups() {
    BenchOptions picked = BenchOptions.parse(new String[] {"--rows", "outbox4j-drain-delete,ceiling-delete"});

    assertThat(picked.runsRow("ceiling-delete")).isTrue();
    assertThat(picked.runsRow("ceiling-update")).isFalse();
    assertThat(BenchOptions.parse(new String[0]).runsRow("ceiling-update")).isTrue();
  }

  /** Both sides, unkeyed and keyed, each on a fresh destination that is deleted afterwards. */
  private void brokerDrainsDeliverEveryRow(BrokerFactory brokers) throws Exception {
    String table = Outbox4jBrokerDrain.TABLE_PREFIX + "outbox";
    for (boolean keyed : new boolean[] {false, true}) {
      BenchBroker rawBroker = brokers.open();
      try (RawBrokerDrain raw = new RawBrokerDrain(database, rawBroker, keyed)) {
        raw.prepare(1_200);
        assertThat(raw.execute(1_200).messages()).isEqualTo(1_200);
        assertThat(database.count(table)).isZero();
        assertThat(rawBroker.stored()).isEqualTo(1_200);
      }
      BenchBroker relayBroker = brokers.open();
      try (Outbox4jBrokerDrain relay = new Outbox4jBrokerDrain(database, relayBroker, keyed)) {
        relay.prepare(1_200);
        assertThat(relay.execute(1_200).messages()).isEqualTo(1_200);
        assertThat(database.count(table)).isZero();
        assertThat(relayBroker.stored()).isEqualTo(1_200);
      }
    }
  }

  @FunctionalInterface
  private interface BrokerFactory {
    BenchBroker open() throws Exception;
  }

  @Test
  void help_prints_the_usage_and_exits_zero() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int code = BenchMain.run(new String[] {"--help"}, new PrintStream(out, true, UTF_8), new PrintStream(err, true,
        UTF_8));

    assertThat(code).isZero();
    assertThat(out.toString(UTF_8)).startsWith("usage: BenchMain").contains("kafka,kafka-hot,connect,rabbitmq,nats");
    assertThat(err.toString(UTF_8)).isEmpty();
  }

  @Test
  void an_unknown_option_or_a_bad_number_exits_non_zero_with_the_usage() throws Exception {
    for (String[] args : List.of(new String[] {"--bogus", "1"}, new String[] {"--n", "lots"},
        new String[] {"--only", "kafka,nope"}, new String[] {"--runs"}, new String[] {"--db", "oracle"},
        new String[] {"--db", "mariadb", "--only", "gruelbox"}, new String[] {"--large-mib", "0"})) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();

      int code = BenchMain.run(args, new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));

      assertThat(code).as(String.join(" ", args)).isEqualTo(BenchMain.BAD_ARGUMENTS);
      assertThat(err.toString(UTF_8)).as(String.join(" ", args)).startsWith("error: ").contains("usage: BenchMain");
      assertThat(out.toString(UTF_8)).isEmpty();
    }
  }

  @Test
  void cpu_meter_sees_work_done_by_our_postgres_backend() throws Exception {
    Properties properties = new Properties();
    properties.setProperty("user", options.user());
    properties.setProperty("ApplicationName", BenchDatabase.APPLICATION_NAME + "-test");
    try (Connection monitor = DriverManager.getConnection(options.jdbcUrl(), properties);
        CpuMeter cpu = new CpuMeter(DriverManager.getConnection(options.jdbcUrl(), properties),
            BenchDatabase.APPLICATION_NAME)) {
      CpuMeter.Sample before = cpu.sample();
      try (Statement statement = monitor.createStatement();
          ResultSet rows = statement.executeQuery("SELECT count(*) FROM generate_series(1, 5000000)")) {
        rows.next();
      }

      CpuMeter.Usage usage = cpu.since(before);

      assertThat(usage.databaseNanos()).isGreaterThan(0);
      assertThat(usage.jvmNanos()).isGreaterThanOrEqualTo(0);
    }
  }

  @Test
  void spread_reports_the_median_of_an_even_number_of_runs_as_the_mean_of_the_middle_two() {
    ScenarioResult result = new ScenarioResult("x", "x",
        List.of(Figures.rate(1_000), Figures.rate(4_000), Figures.rate(2_000), Figures.rate(3_000)));

    ScenarioResult.Spread spread = result.spread(RunMeasurement::messagesPerSecond);

    assertThat(spread.median()).isEqualTo(2_500.0);
    assertThat(spread.min()).isEqualTo(1_000.0);
    assertThat(spread.max()).isEqualTo(4_000.0);
  }

  @Test
  void latency_percentiles_come_from_the_sorted_samples() {
    long[] nanos = new long[100];
    for (int i = 0; i < nanos.length; i++) {
      nanos[i] = (i + 1) * 1_000_000L;
    }

    RunMeasurement.Latency latency = RunMeasurement.Latency.of(nanos);

    assertThat(latency.p50Millis()).isEqualTo(50.0);
    assertThat(latency.p90Millis()).isEqualTo(90.0);
    assertThat(latency.p99Millis()).isEqualTo(99.0);
    assertThat(latency.maxMillis()).isEqualTo(100.0);
  }

  private long countWhere(String table, String condition) throws Exception {
    try (Connection connection = DriverManager.getConnection(options.jdbcUrl(), options.user(), "");
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table + " WHERE " + condition)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
