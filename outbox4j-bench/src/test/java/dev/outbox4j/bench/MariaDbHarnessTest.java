package dev.outbox4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.jdbc.testing.RunDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB forms of the scenarios ({@code --db mariadb}) in this JVM's own MariaDB database: the raw drains in
 * MariaDB SQL and outbox4j's relay retire every row, the end-to-end rows deliver every message, the CPU meter tells
 * our connections' threads by their client ports, and the PostgreSQL-only rows refuse to be built. No timing is
 * asserted.
 */
class MariaDbHarnessTest {
  private final BenchOptions options = BenchOptions.parse(
      new String[] {"--db", "mariadb", "--n", "1000", "--url", RunDatabases.mariadbUrl(), "--large-mib", "4"});
  private final BenchDatabase database = new BenchDatabase(options);

  @Test
  void each_raw_drain_in_mariadb_sql_retires_every_row() throws Exception {
    for (CeilingDrain.Mode mode : new CeilingDrain.Mode[] {CeilingDrain.Mode.LOCKED, CeilingDrain.Mode.LEASED}) {
      try (CeilingDrain ceiling = new CeilingDrain(database, RawOutboxTable.Completion.DELETE, mode)) {
        ceiling.prepare(1_200);
        assertThat(database.count("bench_ceiling")).isEqualTo(1_200);

        assertThat(ceiling.execute(1_200).messages()).as(mode.name()).isEqualTo(1_200);
        assertThat(database.count("bench_ceiling")).as(mode.name()).isZero();
      }
    }
    try (CeilingDrain update =
        new CeilingDrain(database, RawOutboxTable.Completion.UPDATE, CeilingDrain.Mode.LOCKED)) {
      update.prepare(1_200);

      update.execute(1_200);

      assertThat(countWhere("bench_ceiling", "status = 'DELIVERED'")).isEqualTo(1_200);
    }
  }

  @Test
  void the_relay_drains_unkeyed_and_keyed_backlogs_run_after_run() throws Exception {
    for (boolean keyed : new boolean[] {false, true}) {
      try (Outbox4jDrain drain = new Outbox4jDrain(database, false, 1, keyed)) {
        for (int run = 0; run < 2; run++) {
          drain.prepare(1_200);

          assertThat(drain.execute(1_200).messages()).as(drain.id()).isEqualTo(1_200);
          assertThat(database.count("bench_o4j_outbox")).as(drain.id()).isZero();
        }
      }
    }
  }

  @Test
  void one_commit_per_batch_retires_every_entry_in_both_modes() throws Exception {
    for (boolean keep : new boolean[] {false, true}) {
      try (Outbox4jDrain drain = new Outbox4jDrain(database, keep, 1, false).oneCommitPerBatch()) {
        drain.prepare(1_700); // three full batches of 500 go by the combined step, the last one is partial

        assertThat(drain.execute(1_700).messages()).as(drain.id()).isEqualTo(1_700);
        assertThat(countWhere("bench_o4j_outbox", "status <> 'DELIVERED'")).as(drain.id()).isZero();
        assertThat(database.count("bench_o4j_outbox")).as(drain.id()).isEqualTo(keep ? 1_700 : 0);
      }
    }
  }

  @Test
  void emptying_outbox4j_tables_keeps_the_numbers_going_up() throws Exception {
    Outbox4jTables tables = new Outbox4jTables(database, "bench_o4j_");
    try (var pool = database.pool("test", 1, true)) {
      tables.recreate(pool);
    }
    tables.fill(300, false);
    long before = maxSeq();

    tables.fill(300, false);

    assertThat(minSeq()).isGreaterThan(before);
  }

  @Test
  void end_to_end_rows_deliver_every_message_with_small_and_large_payloads() throws Exception {
    for (int size : new int[] {Payloads.SIZE, 16 * 1024}) {
      try (RawEndToEnd raw = new RawEndToEnd(database, 2, size)) {
        int messages = options.messagesFor(600, size);
        raw.prepare(messages);
        assertThat(raw.execute(messages).messages()).as(raw.id()).isEqualTo(messages);
      }
      try (Outbox4jEndToEnd outbox4j = new Outbox4jEndToEnd(database, 2, ClaimNames.REFERENCE, size)) {
        int messages = options.messagesFor(600, size);
        outbox4j.prepare(messages);
        assertThat(outbox4j.execute(messages).messages()).as(outbox4j.id()).isEqualTo(messages);
      }
    }
  }

  @Test
  void cpu_meter_knows_our_connections_by_their_client_ports_and_sees_their_work() throws Exception {
    try (Connection ours = DriverManager.getConnection(options.jdbcUrl(), options.user(), "");
        CpuMeter cpu = new CpuMeter(DriverManager.getConnection(options.jdbcUrl(), options.user(), ""),
            BenchDatabase.APPLICATION_NAME, true)) {
      String host;
      try (Statement statement = ours.createStatement();
          ResultSet rows = statement.executeQuery(
              "SELECT HOST FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()")) {
        rows.next();
        host = rows.getString(1);
      }
      assertThat(CpuMeter.ownLocalPorts()).contains(Integer.parseInt(host.substring(host.lastIndexOf(':') + 1)));

      CpuMeter.Sample before = cpu.sample();
      try (Statement statement = ours.createStatement();
          ResultSet rows = statement.executeQuery("SELECT BENCHMARK(20000000, CRC32('outbox4j'))")) {
        rows.next();
      }

      assertThat(cpu.since(before).databaseNanos()).isGreaterThan(0);
    }
  }

  @Test
  void postgresql_only_rows_and_groups_are_refused_on_mariadb() {
    assertThatThrownBy(() -> new CeilingDrain(database, RawOutboxTable.Completion.DELETE, CeilingDrain.Mode.SESSION))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("advisory locks");
    assertThatThrownBy(() -> new Outbox4jLatency(database, options, Outbox4jLatency.Wake.NOTIFY, false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LISTEN/NOTIFY");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--db", "mariadb", "--only", "ceiling,kafka"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'kafka' has no MariaDB form");
    assertThat(options.runs("gruelbox")).isFalse();
    assertThat(options.runs("e2e")).isTrue();
  }

  private long maxSeq() throws Exception {
    return single("SELECT MAX(seq) FROM bench_o4j_outbox");
  }

  private long minSeq() throws Exception {
    return single("SELECT MIN(seq) FROM bench_o4j_outbox");
  }

  private long countWhere(String table, String condition) throws Exception {
    return single("SELECT count(*) FROM " + table + " WHERE " + condition);
  }

  private long single(String sql) throws Exception {
    try (Connection connection = DriverManager.getConnection(options.jdbcUrl(), options.user(), "");
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
