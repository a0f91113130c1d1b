package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.KeyNumbering;
import dev.outbox4j.spi.Retention;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * Runs the benchmark scenarios, prints a markdown report and writes it to {@code bench-results/}, with its charts
 * ({@link Charts}: SVG files beside the report, named after it).
 *
 * <pre>
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="--n 50000 --runs 3"
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="--quick"
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="--quick --only ceiling,gruelbox"
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="--n 20000 --runs 2 --only kafka,rabbitmq,nats"
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="--db mariadb --n 20000 --runs 2"
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="--only large --n 20000 --runs 2"
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="claim-backlog --db mariadb"   (ClaimBacklogBench)
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="serializable-writers"   (SerializableWritersBench)
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="horizon"    (HorizonBench; also "soak")
 * </pre>
 *
 * <p>{@code test-compile}, not {@code compile}: the in-process Kafka broker comes from outbox4j-kafka's test classes.
 * Exits 0 after a run or {@code --help}, 2 (with the usage) on a bad argument.
 */
public final class BenchMain {
  /** The exit code for an unknown option or a bad value. */
  static final int BAD_ARGUMENTS = 2;

  private BenchMain() {}

  /** Makes a scenario when its turn comes (so set-up of one does not disturb the measurement of another). */
  @FunctionalInterface
  interface ScenarioFactory {
    Scenario create() throws Exception;
  }

  /** A scenario and the groups that select it. */
  record Planned(Set<String> groups, ScenarioFactory factory) {}

  /**
   * @param args see {@link BenchOptions#usage()}
   */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("serializable-writers")) {
      SerializableWritersBench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && args[0].equals("claim-backlog")) {
      ClaimBacklogBench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && (args[0].equals("horizon") || args[0].equals("soak"))) {
      System.exit(HorizonBench.run(java.util.Arrays.copyOfRange(args, 1, args.length), args[0].equals("soak"),
          System.out, System.err));
    }
    // Exits explicitly: the in-process Kafka broker's threads would otherwise keep the JVM (and exec:java) waiting.
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Parses the arguments and runs the benchmark.
   *
   * @return the exit code: 0 after a run or {@code --help}; {@value #BAD_ARGUMENTS} on a bad argument, after printing
   *     what is wrong and the usage to {@code err}
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    if (BenchOptions.helpRequested(args)) {
      out.print(BenchOptions.usage());
      return 0;
    }
    BenchOptions options;
    try {
      options = BenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.print(BenchOptions.usage());
      return BAD_ARGUMENTS;
    }
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    bench(options);
    return 0;
  }

  private static void bench(BenchOptions options) throws Exception {
    BenchDatabase database = new BenchDatabase(options);
    String started = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_LOCAL_DATE_TIME).substring(0, 19);
    String loadBefore = loadAverage();
    Report report = options.mariaDb() ? new Report("MariaDB", false) : new Report();
    try (Connection monitor = connect(options);
        CpuMeter cpu = new CpuMeter(monitor, BenchDatabase.APPLICATION_NAME, options.mariaDb())) {
      String machine = machine(monitor, options.mariaDb());
      System.out.printf("outbox4j-bench %s UTC, N=%,d, runs=%d, warm-ups=%d%s%n%s%n", started, options.messages(),
          options.runs(), options.warmups(), options.quick() ? " (QUICK MODE: smoke test, not a measurement)" : "",
          machine);
      ScenarioRunner runner = new ScenarioRunner(options, cpu, System.out);
      for (Planned planned : plan(database, options)) {
        if (planned.groups().stream().anyMatch(options::runs)) {
          Scenario scenario = planned.factory().create();
          if (options.runsRow(scenario.id())) {
            report.add(runner.run(scenario));
          } else {
            scenario.close();
          }
        }
      }
      String loadAfter = loadAverage();
      String markdown = document(options, started, machine, loadBefore, loadAfter, report);
      System.out.println();
      System.out.println(markdown);
      Path directory = Path.of("bench-results");
      Files.createDirectories(directory);
      String on = options.mariaDb() ? "-mariadb" : "";
      String stem = "bench" + on + "-" + started.replace(":", "").replace("-", "").replace("T", "-");
      for (String base : List.of(stem, "latest" + on)) {
        List<String> charts = Charts.write(report.results(), directory, base);
        Files.writeString(directory.resolve(base + ".md"),
            markdown + pictures(charts) + "\n## Every run\n\n" + report.raw());
      }
      System.out.println("written to " + directory.resolve(stem + ".md").toAbsolutePath()
          + " (charts beside it: " + stem + "-*.svg)");
    }
  }

  /** @return a markdown section that shows the charts written beside the report, or nothing if none were */
  private static String pictures(List<String> charts) {
    StringBuilder out = new StringBuilder();
    if (!charts.isEmpty()) {
      out.append("\n## Charts\n\n");
      charts.forEach(chart -> out.append("![").append(chart).append("](").append(chart).append(")\n\n"));
    }
    return out.toString();
  }

  /**
   * The scenarios in run order. On MariaDB ({@code --db mariadb}) the PostgreSQL-only ones are left out: the session
   * claim (advisory locks), the {@code synchronous_commit} experiment, the other claim strategies (MariaDB has only
   * leased rows, its default, which the plain rows run), the keyed writes numbered by a deferred trigger or at insert
   * (MariaDB always numbers at insert, in the store's trigger), gruelbox, and the latency rows woken by
   * LISTEN/NOTIFY; groups without a MariaDB form never run there ({@link BenchOptions#runs}).
   */
  static List<Planned> plan(BenchDatabase database, BenchOptions options) {
    List<Planned> plan = new ArrayList<>();
    boolean postgres = !database.mariaDb();
    plan.add(new Planned(Set.of("ceiling"),
        () -> new CeilingDrain(database, RawOutboxTable.Completion.DELETE, CeilingDrain.Mode.LOCKED)));
    plan.add(new Planned(Set.of("ceiling"),
        () -> new CeilingDrain(database, RawOutboxTable.Completion.UPDATE, CeilingDrain.Mode.LOCKED)));
    plan.add(new Planned(Set.of("ceiling"),
        () -> new CeilingDrain(database, RawOutboxTable.Completion.DELETE, CeilingDrain.Mode.LEASED)));
    if (postgres) {
      plan.add(new Planned(Set.of("ceiling"),
          () -> new CeilingDrain(database, RawOutboxTable.Completion.DELETE, CeilingDrain.Mode.SESSION)));
    }
    plan.add(new Planned(Set.of("outbox4j-drain"), () -> new Outbox4jDrain(database, false, 1, false)));
    plan.add(new Planned(Set.of("outbox4j-drain"), () -> new Outbox4jDrain(database, true, 1, false)));
    plan.add(new Planned(Set.of("outbox4j-drain"), () -> new Outbox4jDrain(database, false, 2, false)));
    plan.add(new Planned(Set.of("outbox4j-drain"), () -> new Outbox4jDrain(database, false, 1, true)));
    for (boolean keep : new boolean[] {false, true}) {
      plan.add(new Planned(Set.of("outbox4j-drain"),
          () -> new Outbox4jDrain(database, keep, 1, false).oneCommitPerBatch()));
    }
    if (postgres) {
      plan.add(new Planned(Set.of("outbox4j-drain"), () -> new Outbox4jDrain(database, false, 1, false, true)));
      for (boolean keep : new boolean[] {false, true}) {
        plan.add(new Planned(Set.of("outbox4j-drain"),
            () -> new Outbox4jDrain(database, keep, 1, false).statementsPrepared()));
      }
    }
    for (ClaimStrategy claims : postgres ? ClaimNames.alternatives() : List.<ClaimStrategy>of()) {
      for (int[] variant : new int[][] {{0, 1, 0}, {1, 1, 0}, {0, 2, 0}, {0, 1, 1}}) { // keep, relays, keyed
        plan.add(new Planned(Set.of("outbox4j-drain"), () -> new Outbox4jDrain(database, variant[0] == 1,
            variant[1], variant[2] == 1, false, claims)));
      }
    }
    plan.add(new Planned(Set.of("gruelbox"), () -> new GruelboxDrain(database, options)));
    plan.add(new Planned(Set.of("write"), () -> {
      BusinessTable.reset(database);
      return new WriteScenario(database, options.writers(), "write-business",
          "4 business row alone, " + options.writers() + " writers", () -> {}, (connection, index) -> {});
    }));
    plan.add(new Planned(Set.of("write"), () -> {
      BusinessTable.reset(database);
      RawOutboxTable table = RawOutboxTable.on(database, "bench_raw_write", Payloads.SIZE);
      table.create(database);
      return new WriteScenario(database, options.writers(), "write-raw-outbox",
          "4 business row + raw outbox row (reference), " + options.writers() + " writers",
          () -> table.fill(database, 0), (connection, index) -> table.insert(connection));
    }));
    for (RawKeyedOutboxTable.Numbering numbering
        : postgres ? RawKeyedOutboxTable.Numbering.values() : new RawKeyedOutboxTable.Numbering[0]) {
      plan.add(new Planned(Set.of("write"), () -> {
        BusinessTable.reset(database);
        RawKeyedOutboxTable table = new RawKeyedOutboxTable("bench_raw_keyed", numbering);
        table.create(database);
        boolean side = numbering == RawKeyedOutboxTable.Numbering.SIDE_TABLE;
        return new WriteScenario(database, options.writers(), side ? "write-raw-keyed-side" : "write-raw-keyed-update",
            "4 business row + raw keyed outbox row (" + Outbox4jTables.KEYS + " keys) numbered at commit "
                + (side ? "into a narrow side table" : "by an UPDATE of the row") + " (experiment), "
                + options.writers() + " writers",
            () -> table.reset(database),
            (connection, index) -> table.insert(connection, "key-" + (index % Outbox4jTables.KEYS)));
      }));
    }
    for (int writers : new int[] {1, options.writers()}) {
      for (boolean trigger : new boolean[] {false, true}) {
        plan.add(new Planned(Set.of("notify-trigger"), () -> plainSqlWrites(database, writers, trigger, false)));
      }
    }
    if (!postgres) {
      // Where a MariaDB write's cost goes: outbox4j's table by plain SQL, with and without its insert trigger.
      for (boolean dropKeyTrigger : new boolean[] {false, true}) {
        plan.add(new Planned(Set.of("write"),
            () -> plainSqlWrites(database, options.writers(), false, dropKeyTrigger)));
      }
    }
    plan.add(new Planned(Set.of("write"), () -> outbox4jWrites(database, options, false, KeyNumbering.AT_COMMIT)));
    plan.add(new Planned(Set.of("write"), () -> outbox4jWrites(database, options, true, KeyNumbering.AT_COMMIT)));
    if (postgres) {
      plan.add(new Planned(Set.of("write"),
          () -> outbox4jWrites(database, options, true, KeyNumbering.AT_INSERT)));
    }
    plan.add(new Planned(Set.of("e2e"), () -> new RawEndToEnd(database, options.writers())));
    plan.add(new Planned(Set.of("e2e"), () -> new Outbox4jEndToEnd(database, options.writers())));
    if (postgres) {
      for (ClaimStrategy claims : ClaimNames.alternatives()) {
        plan.add(new Planned(Set.of("e2e"), () -> new Outbox4jEndToEnd(database, options.writers(), claims)));
      }
      plan.add(new Planned(Set.of("e2e", "gruelbox"), () -> new GruelboxEndToEnd(database, options)));
    }
    plan.add(new Planned(Set.of("claim"), () -> new RawClaimCost(database, options.smallPending(), "small")));
    plan.add(new Planned(Set.of("claim"), () -> new RawClaimCost(database, options.largePending(), "large")));
    for (ClaimStrategy claims : ClaimStrategy.values()) {
      plan.add(new Planned(Set.of("claim"),
          () -> new Outbox4jClaimCost(database, options.smallPending(), "small", claims)));
      plan.add(new Planned(Set.of("claim"),
          () -> new Outbox4jClaimCost(database, options.largePending(), "large", claims)));
    }
    if (postgres) {
      plan.add(new Planned(Set.of("latency"),
          () -> new Outbox4jLatency(database, options, Outbox4jLatency.Wake.NOTIFY, false)));
    }
    plan.add(new Planned(Set.of("latency"),
        () -> new Outbox4jLatency(database, options, Outbox4jLatency.Wake.IN_PROCESS, false)));
    if (postgres) {
      plan.add(new Planned(Set.of("latency", "notify-trigger"),
          () -> new Outbox4jLatency(database, options, Outbox4jLatency.Wake.TRIGGER, false)));
      // the same two PostgreSQL rows with the store's statements prepared (database.prepared-statements: true)
      plan.add(new Planned(Set.of("latency"),
          () -> new Outbox4jLatency(database, options, Outbox4jLatency.Wake.NOTIFY, true)));
      plan.add(new Planned(Set.of("latency", "notify-trigger"),
          () -> new Outbox4jLatency(database, options, Outbox4jLatency.Wake.TRIGGER, true)));
    }
    brokerRows(plan, database, "kafka", KafkaBenchBroker::new);
    kafkaTransactionRows(plan, database);
    connectRows(plan, database);
    brokerRows(plan, database, "rabbitmq", RabbitMqBenchBroker::new);
    brokerRows(plan, database, "nats", NatsBenchBroker::new);
    httpRows(plan, database);
    largeRows(plan, database, options);
    return plan;
  }

  /**
   * Large messages (group {@code large}): per payload size ({@link Payloads#LARGE_SIZES}), the ceiling drain and the
   * relay's drain (delete), then the raw loop and outbox4j end to end, every row with the same random, incompressible
   * payload of that size; N per run is {@code --large-mib} over the size.
   */
  private static void largeRows(List<Planned> plan, BenchDatabase database, BenchOptions options) {
    for (int size : Payloads.LARGE_SIZES) {
      plan.add(new Planned(Set.of("large"),
          () -> new CeilingDrain(database, RawOutboxTable.Completion.DELETE, CeilingDrain.Mode.LOCKED, size)));
      plan.add(new Planned(Set.of("large"),
          () -> new Outbox4jDrain(database, false, 1, false, false, ClaimNames.REFERENCE, size)));
      plan.add(new Planned(Set.of("large"), () -> new RawEndToEnd(database, options.writers(), size)));
      plan.add(new Planned(Set.of("large"),
          () -> new Outbox4jEndToEnd(database, options.writers(), ClaimNames.REFERENCE, size)));
    }
  }

  /** Opens a fresh connection to one broker for one scenario. */
  @FunctionalInterface
  interface BrokerFactory {
    BenchBroker create() throws Exception;
  }

  /**
   * Broker end to end, unkeyed then keyed: the baseline right before its outbox4j rows, so they share the machine's
   * state; then the relay with the reference claims, and with each other claim strategy started with 2 workers and
   * draining with 1.
   */
  private static void brokerRows(List<Planned> plan, BenchDatabase database, String group, BrokerFactory brokers) {
    for (boolean keyed : new boolean[] {false, true}) {
      plan.add(new Planned(alsoConnect(keyed && group.equals("kafka"), Set.of(group)),
          () -> new RawBrokerDrain(database, brokers.create(), keyed)));
      plan.add(new Planned(Set.of(group), () -> new Outbox4jBrokerDrain(database, brokers.create(), keyed)));
      for (ClaimStrategy claims : ClaimNames.alternatives()) {
        for (int workers : new int[] {2, 1}) {
          plan.add(new Planned(Set.of(group),
              () -> new Outbox4jBrokerDrain(database, brokers.create(), keyed, workers, claims)));
        }
      }
    }
  }

  /**
   * Webhooks end to end (group {@code http}): into a receiver that keeps connections alive and one that closes each,
   * unkeyed then keyed, the hand-written JDK client baseline right before the relay with the HTTP transport's defaults.
   */
  private static void httpRows(List<Planned> plan, BenchDatabase database) {
    for (boolean keepAlive : new boolean[] {true, false}) {
      for (boolean keyed : new boolean[] {false, true}) {
        plan.add(new Planned(Set.of("http"),
            () -> new RawBrokerDrain(database, new HttpBenchBroker(keepAlive), keyed)));
        plan.add(new Planned(Set.of("http"),
            () -> Outbox4jBrokerDrain.started(database, new HttpBenchBroker(keepAlive), keyed)));
      }
    }
  }

  /**
   * Kafka's transactional mode: the relay (the reference claim) unkeyed and keyed over 1,000 keys, to set against the
   * idempotent transport's rows of group {@code kafka}; and, in group {@code kafka-hot}, a backlog over 3 keys, through
   * the transactional mode (runs of a key in one transaction) and through the idempotent transport (one entry of a
   * key in flight), to set against the transactional unkeyed row (run {@code --only kafka,kafka-hot}).
   */
  private static void kafkaTransactionRows(List<Planned> plan, BenchDatabase database) {
    for (boolean keyed : new boolean[] {false, true}) {
      plan.add(new Planned(alsoConnect(keyed, Set.of("kafka", "kafka-hot")),
          () -> new Outbox4jBrokerDrain(database, new KafkaBenchBroker(true), keyed)));
      plan.add(new Planned(Set.of("kafka"), () -> new Outbox4jBrokerDrain(database, new KafkaBenchBroker(true),
          keyed ? Outbox4jTables.KEYS : 0, 2, ClaimNames.REFERENCE)));
    }
    for (boolean transactional : new boolean[] {true, false}) {
      plan.add(new Planned(Set.of("kafka-hot"), () -> new Outbox4jBrokerDrain(database,
          new KafkaBenchBroker(transactional), 3, 1, ClaimNames.REFERENCE)));
    }
  }

  /**
   * Kafka Connect (groups {@code kafka} and {@code connect}): outbox4j's source connector, exactly once, with
   * {@code tasks.max} 1 and 2, keyed, after the rows it is set against: the Kafka baseline and the relay's transactional
   * mode, keyed, which group {@code connect} runs too.
   */
  private static void connectRows(List<Planned> plan, BenchDatabase database) {
    for (int tasks : new int[] {1, 2}) {
      plan.add(new Planned(Set.of("kafka", "connect"), () -> new ConnectorDrain(database, tasks)));
    }
  }

  /** @return {@code groups}, and group {@code connect} when {@code also}: a row the connector's rows are set against */
  private static Set<String> alsoConnect(boolean also, Set<String> groups) {
    if (!also) {
      return groups;
    }
    Set<String> more = new java.util.HashSet<>(groups);
    more.add("connect");
    return Set.copyOf(more);
  }

  /**
   * Scenario 4 with an outbox4j write: unkeyed, or keyed over 1,000 keys, numbered at commit (the schema's default)
   * or at insert ({@link JdbcOutboxStore#useKeyNumbering}).
   */
  private static Scenario outbox4jWrites(BenchDatabase database, BenchOptions options, boolean keyed,
      KeyNumbering numbering) throws Exception {
    BusinessTable.reset(database);
    Outbox4jTables tables = new Outbox4jTables(database, "bench_o4j_");
    JdbcOutbox outbox;
    try (HikariDataSource setup = database.pool("o4j-write-setup", 1, true)) {
      tables.recreate(setup);
      // The writer keeps the dialect detected here and never touches the pool again: it writes on the callers'
      // connections.
      JdbcOutboxStore store = tables.store(setup, Retention.deleteOnDelivery());
      if (numbering == KeyNumbering.AT_INSERT) {
        store.useKeyNumbering(numbering);
      }
      outbox = store.outbox();
    }
    String id = !keyed ? "write-outbox4j-unkeyed"
        : numbering == KeyNumbering.AT_INSERT ? "write-outbox4j-keyed-at-insert" : "write-outbox4j-keyed";
    return new WriteScenario(database, options.writers(), id,
        "4 business row + outbox4j write, " + (keyed ? "keyed (" + Outbox4jTables.KEYS + " keys), numbered at "
            + (database.mariaDb() ? "insert (MariaDB's trigger)" : numbering.configName()) : "unkeyed") + ", "
            + options.writers() + " writers",
        tables::truncate,
        (connection, index) -> outbox.write(connection,
            Outbox4jTables.message(keyed ? "key-" + (index % Outbox4jTables.KEYS) : null)));
  }

  /**
   * Scenario 4 as another application writes: the business row and an unkeyed outbox row inserted with plain SQL
   * (docs/schema.md), into outbox4j's table with or without the opt-in notify trigger (PostgreSQL); nothing drains.
   * On MariaDB, as an experiment, without the store's insert trigger ({@code dropKeyTrigger}): what that trigger costs
   * an unkeyed write.
   */
  private static Scenario plainSqlWrites(BenchDatabase database, int writers, boolean trigger,
      boolean dropKeyTrigger) throws Exception {
    BusinessTable.reset(database);
    Outbox4jTables tables = new Outbox4jTables(database, "bench_o4j_");
    try (HikariDataSource setup = database.pool("o4j-plain-setup", 1, true)) {
      tables.recreate(setup);
      if (trigger) {
        tables.store(setup, Retention.deleteOnDelivery()).installNotifyTrigger();
      }
    }
    if (dropKeyTrigger) {
      database.execute("DROP TRIGGER bench_o4j_outbox_key_seq");
    }
    String insert = "INSERT INTO " + tables.outbox() + " (id, destination, payload, content_type, headers)"
        + " VALUES (?, ?, ?, 'application/json', '{}')";
    return new WriteScenario(database, writers, dropKeyTrigger ? "write-plain-sql-no-insert-trigger-" + writers + "w"
        : plainSqlWriteId(writers, trigger),
        "4 business row + outbox row by plain SQL, unkeyed, " + (database.mariaDb()
            ? (dropKeyTrigger ? "the store's insert trigger dropped (experiment)" : "the store's schema as migrated")
            : (trigger ? "with" : "without") + " the notify trigger") + ", " + writers + " writer"
            + (writers == 1 ? "" : "s"),
        tables::truncate,
        (connection, index) -> {
          try (var statement = connection.prepareStatement(insert)) {
            if (database.mariaDb()) {
              statement.setString(1, java.util.UUID.randomUUID().toString());
            } else {
              statement.setObject(1, java.util.UUID.randomUUID());
            }
            statement.setString(2, Payloads.DESTINATION);
            statement.setBytes(3, Payloads.bytes());
            statement.executeUpdate();
          }
        });
  }

  /** @return the id of a {@link #plainSqlWrites} row */
  static String plainSqlWriteId(int writers, boolean trigger) {
    return "write-plain-sql" + (trigger ? "-trigger" : "") + "-" + writers + "w";
  }

  private static String document(BenchOptions options, String started, String machine, String loadBefore,
      String loadAfter, Report report) {
    return "# outbox4j benchmark" + (options.mariaDb() ? " on MariaDB" : "") + ", " + started + " UTC\n\n"
        + "N = " + String.format("%,d", options.messages()) + " messages per run, " + options.runs()
        + " measured run(s) after " + options.warmups() + " warm-up(s); 200-byte payloads"
        + (options.runs("large") ? " (large-message rows: 16 KiB and 256 KiB, N = " + options.largeMib()
            + " MiB over the size, at most N)" : "") + "; " + options.writers()
        + " writers; gruelbox submitter threads " + options.gruelboxThreads() + "."
        + (options.outboxFillfactor() != 0 ? " Experiment: outbox4j table fillfactor " + options.outboxFillfactor()
            + "." : "")
        + (options.quick() ? " **Quick mode: a smoke test, not a measurement.**" : "") + "\n\n"
        + machine + "\n\nLoad average before: " + loadBefore + "; after: " + loadAfter + "\n\n"
        + report.table() + "\n## Ratios and targets\n\n"
        + (options.mariaDb() ? "Only the ratios whose two rows ran are listed: the others have no MariaDB form.\n\n"
            : "")
        + report.ratios();
  }

  private static Connection connect(BenchOptions options) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", options.user());
    if (!options.mariaDb()) {
      properties.setProperty("ApplicationName", BenchDatabase.APPLICATION_NAME + "-monitor");
    }
    return DriverManager.getConnection(options.jdbcUrl(), properties);
  }

  private static String machine(Connection connection, boolean mariaDb) throws SQLException {
    StringBuilder out = new StringBuilder();
    out.append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs (")
        .append(cpuModel()).append("), Java ").append(System.getProperty("java.version")).append(", ");
    if (mariaDb) {
      try (Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT version(), @@innodb_flush_log_at_trx_commit,"
              + " @@innodb_buffer_pool_size DIV 1048576, @@log_bin, @@tx_isolation, @@thread_handling")) {
        rows.next();
        out.append("MariaDB ").append(rows.getString(1)).append(" (innodb_flush_log_at_trx_commit ")
            .append(rows.getString(2)).append(", buffer pool ").append(rows.getString(3)).append("MB, log_bin ")
            .append(rows.getString(4)).append(", default isolation ").append(rows.getString(5)).append(", ")
            .append(rows.getString(6)).append(")");
      }
      return out.toString();
    }
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT split_part(version(), ' on ', 1),"
            + " current_setting('fsync'), current_setting('synchronous_commit'), current_setting('shared_buffers')")) {
      rows.next();
      out.append(rows.getString(1)).append(" (fsync ").append(rows.getString(2)).append(", synchronous_commit ")
          .append(rows.getString(3)).append(", shared_buffers ").append(rows.getString(4)).append(")");
    }
    return out.toString();
  }

  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(line -> line.startsWith("model name"))
          .findFirst().map(line -> line.substring(line.indexOf(':') + 1).trim()).orElse("unknown model");
    } catch (IOException e) {
      return "unknown model";
    }
  }

  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException e) {
      return "unknown";
    }
  }
}
