package dev.outbox4j.bench;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What one benchmark run does, from the command line.
 *
 * @param messages N, the messages per measured run of a throughput scenario
 * @param runs measured runs per scenario (the median, minimum and maximum are reported)
 * @param warmups unmeasured runs per scenario before the measured ones, each with the full N
 * @param only scenario groups to run; empty means all
 * @param jdbcUrl the database
 * @param user the database user (trust authentication, no password)
 * @param writers writer threads in the write and end-to-end scenarios
 * @param gruelboxThreads threads of gruelbox's submitter pool
 * @param latencySeconds how long the latency scenario offers load
 * @param offeredRate messages per second the latency scenario offers
 * @param smallPending the smaller backlog of the claim-cost scenario
 * @param largePending the larger backlog of the claim-cost scenario
 * @param quick whether this is the quick smoke-test mode (numbers not comparable with a full run)
 * @param outboxFillfactor an experiment: the fillfactor set on outbox4j's tables after migration, or 0 to leave the
 *     migration's (PostgreSQL's default, 100)
 * @param rows scenario ids to run among the selected groups; empty means all (to profile or re-measure one row)
 * @param db the database the scenarios run on: {@code postgresql} or {@code mariadb} (MariaDB runs
 *     {@link #MARIADB_GROUPS} only)
 * @param largeMib the payload bytes of one run of a large-message row, MiB: its N is this over the payload size, and
 *     at most {@code messages}
 */
record BenchOptions(
    int messages,
    int runs,
    int warmups,
    Set<String> only,
    String jdbcUrl,
    String user,
    int writers,
    int gruelboxThreads,
    int latencySeconds,
    int offeredRate,
    int smallPending,
    int largePending,
    boolean quick,
    int outboxFillfactor,
    Set<String> rows,
    String db,
    int largeMib) {

  /** The scenario groups, in the order they run. */
  static final List<String> GROUPS = List.of("ceiling", "outbox4j-drain", "gruelbox", "write", "e2e", "latency",
      "notify-trigger", "claim", "kafka", "kafka-hot", "connect", "rabbitmq", "nats", "http", "large");
  /** The groups that have a MariaDB form, in the order they run. */
  static final List<String> MARIADB_GROUPS = List.of("ceiling", "outbox4j-drain", "write", "e2e", "latency", "large");
  /** The databases {@code --db} accepts. */
  static final List<String> DATABASES = List.of("postgresql", "mariadb");

  BenchOptions {
    only = Set.copyOf(only);
    rows = Set.copyOf(rows);
    for (String group : only) {
      if (!GROUPS.contains(group)) {
        throw new IllegalArgumentException("--only: unknown scenario group '" + group + "'; known: " + GROUPS);
      }
    }
    if (messages < 100) {
      throw new IllegalArgumentException("--n must be at least 100, was " + messages);
    }
    if (runs < 1) {
      throw new IllegalArgumentException("--runs must be positive, was " + runs);
    }
    if (outboxFillfactor != 0 && (outboxFillfactor < 10 || outboxFillfactor > 100)) {
      throw new IllegalArgumentException("--outbox-fillfactor must be 10..100, was " + outboxFillfactor);
    }
    if (!DATABASES.contains(db)) {
      throw new IllegalArgumentException("--db must be one of " + DATABASES + ", was '" + db + "'");
    }
    if (db.equals("mariadb")) {
      for (String group : only) {
        if (!MARIADB_GROUPS.contains(group)) {
          throw new IllegalArgumentException("--only: group '" + group + "' has no MariaDB form; with --db mariadb: "
              + MARIADB_GROUPS);
        }
      }
    }
    if (largeMib < 1 || largeMib > 4096) {
      throw new IllegalArgumentException("--large-mib must be 1..4096, was " + largeMib);
    }
    if (warmups < 0) {
      throw new IllegalArgumentException("--warmups must not be negative, was " + warmups);
    }
  }

  boolean runs(String group) {
    if (mariaDb() && !MARIADB_GROUPS.contains(group)) {
      return false;
    }
    return only.isEmpty() || only.contains(group);
  }

  /** @return whether the scenarios run on MariaDB (else PostgreSQL) */
  boolean mariaDb() {
    return db.equals("mariadb");
  }

  /**
   * @param payloadBytes the size of a scenario's payloads
   * @return N for a run of that scenario: {@code messages} for the 200-byte payload; for a large message
   *     {@code --large-mib} over the size, at most {@code messages}, at least 100
   */
  int messagesFor(int messages, int payloadBytes) {
    if (payloadBytes == Payloads.SIZE) {
      return messages;
    }
    return (int) Math.max(100, Math.min(messages, largeMib * 1024L * 1024L / payloadBytes));
  }

  /** @return the JDBC URL of the service on this machine for {@code db}, the default of {@code --url} */
  static String defaultUrl(String db) {
    return db.equals("mariadb") ? "jdbc:mariadb://127.0.0.1:3306/test" : "jdbc:postgresql://127.0.0.1:5432/test";
  }

  /** @return whether the scenario of this id runs (its group being selected) */
  boolean runsRow(String scenarioId) {
    return rows.isEmpty() || rows.contains(scenarioId);
  }

  /** @return N for a warm-up run: the full N, so the JIT has compiled the hot paths before the first measurement */
  int warmupMessages() {
    return messages;
  }

  static String usage() {
    return """
        usage: BenchMain [--help] [--n N] [--runs R] [--warmups W] [--only g1,g2] [--rows id1,id2] [--quick]
                         [--db postgresql|mariadb] [--url jdbc:postgresql://127.0.0.1:5432/test] [--user postgres]
                         [--writers 4] [--gruelbox-threads 8] [--latency-seconds 30] [--rate 2000]
                         [--small-pending 10000] [--large-pending 1000000] [--outbox-fillfactor 80] [--large-mib 256]
          groups: %s
          --db mariadb: groups %s only, on jdbc:mariadb://127.0.0.1:3306/test as root unless --url, --user say
          large: drain and end to end with 16 KiB and 256 KiB payloads, each against a ceiling with the same payload;
            N per run = --large-mib over the payload size, at most --n
          kafka, rabbitmq, nats: broker end to end, outbox4j relay vs hand-written JDBC + client library (Kafka runs
            in-process; RabbitMQ on 127.0.0.1:5672 and NATS JetStream on 127.0.0.1:4222 must be running); kafka
            also runs the transactional mode's rows
          http: webhooks into a local receiver that keeps connections alive or closes each, outbox4j's HTTP transport
            vs the JDK HttpClient at the transport's concurrency (16), unkeyed and keyed
          kafka-hot: Kafka, a backlog over 3 keys, transactional mode (runs of a key) vs the idempotent transport
            (one entry of a key in flight), beside the transactional unkeyed and keyed rows
          connect: outbox4j's source connector on Kafka Connect (one in-process worker, exactly once, tasks.max 1
            and 2), keyed, beside the Kafka baseline and the relay's transactional mode, keyed (kafka runs it too)
          --rows: only the scenarios of these ids (e.g. outbox4j-drain-delete) among the groups selected
          -Doutbox4j.bench.jfr=<dir> (a JVM property): a flight recording of each scenario's measured runs, <id>.jfr
          --help, -h: print this and exit
          --quick = --n 5000 --runs 1 --latency-seconds 5 --large-pending 100000 (a smoke test, not a measurement)
        """.formatted(String.join(",", GROUPS), String.join(",", MARIADB_GROUPS));
  }

  /** @return whether the arguments ask for the usage text instead of a run */
  static boolean helpRequested(String[] args) {
    return List.of(args).contains("--help") || List.of(args).contains("-h");
  }

  /**
   * @param args the command line, without {@code --help}
   * @return the options
   * @throws IllegalArgumentException naming the option that is unknown, lacks a value, or has a bad value
   */
  static BenchOptions parse(String[] args) {
    int messages = 50_000;
    int runs = 3;
    int warmups = 1;
    Set<String> only = new LinkedHashSet<>();
    Set<String> rows = new LinkedHashSet<>();
    String url = null;
    String user = null;
    String db = "postgresql";
    int largeMib = 256;
    int writers = 4;
    int gruelboxThreads = 8;
    int latencySeconds = 30;
    int rate = 2_000;
    int smallPending = 10_000;
    int largePending = 1_000_000;
    boolean quick = false;
    int fillfactor = 0;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--quick")) {
        quick = true;
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(arg + " needs a value");
      }
      String value = args[++i];
      switch (arg) {
        case "--n" -> messages = number(arg, value);
        case "--runs" -> runs = number(arg, value);
        case "--warmups" -> warmups = number(arg, value);
        case "--only" -> only.addAll(List.of(value.split(",")));
        case "--rows" -> rows.addAll(List.of(value.split(",")));
        case "--url" -> url = value;
        case "--user" -> user = value;
        case "--writers" -> writers = number(arg, value);
        case "--gruelbox-threads" -> gruelboxThreads = number(arg, value);
        case "--latency-seconds" -> latencySeconds = number(arg, value);
        case "--rate" -> rate = number(arg, value);
        case "--small-pending" -> smallPending = number(arg, value);
        case "--large-pending" -> largePending = number(arg, value);
        case "--outbox-fillfactor" -> fillfactor = number(arg, value);
        case "--db" -> db = value.toLowerCase(java.util.Locale.ROOT);
        case "--large-mib" -> largeMib = number(arg, value);
        default -> throw new IllegalArgumentException("unknown option " + arg);
      }
    }
    if (quick) {
      messages = 5_000;
      runs = 1;
      latencySeconds = Math.min(latencySeconds, 5);
      largePending = Math.min(largePending, 100_000);
    }
    return new BenchOptions(messages, runs, warmups, only, url != null ? url : defaultUrl(db),
        user != null ? user : db.equals("mariadb") ? "root" : "postgres", writers, gruelboxThreads, latencySeconds,
        rate, smallPending, largePending, quick, fillfactor, rows, db, largeMib);
  }

  private static int number(String option, String value) {
    try {
      return Integer.parseInt(value.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a whole number, was '" + value + "'");
    }
  }
}
