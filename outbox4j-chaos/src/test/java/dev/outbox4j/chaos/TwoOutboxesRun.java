package dev.outbox4j.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The two-outboxes run: two PostgreSQL clusters of the suite's own, an outbox in each ({@value #STEADY} and
 * {@value #CRASHING}), a writer process per outbox writing keyed messages throughout, and relay processes of the
 * runnable relay ({@link RelayAppMain}) each draining both through its configuration's {@code outboxes:} into
 * RabbitMQ (a queue per outbox). The crashing outbox's cluster is stopped at once ({@code pg_ctl stop -m immediate})
 * and started again several times; between those outages a relay is SIGKILLed and restarted.
 *
 * <p>Why it is shaped this way: a lane is the relay app's promise that one outbox's fault never touches another's.
 * So the steady outbox is judged twice: as every chaos run judges (nothing lost, invented, reordered, stranded), and
 * by its delivery rate during each outage of the other against its rate before the first (a lane that waited for the
 * other's database would show it there). During each outage every relay's {@code /health/ready} must name the
 * crashing outbox {@code DOWN} while the process keeps serving; the outage lasts its downtime, and longer (bounded)
 * until every relay has said so, so a slow machine delays the answer rather than failing the run. Kills come between
 * outages, never in one and never in the time the rate before is taken, so an outage's rate measures the outage alone;
 * an outage begins once every relay is ready again (a relay restarted after a kill may take many seconds to start on
 * a loaded machine). Every process and database it started is gone
 * when {@link #run} returns or throws.
 */
final class TwoOutboxesRun {
  static final String STEADY = "steady";
  static final String CRASHING = "crashing";
  private static final String LOGBACK = "ch.qos.logback.classic.spi.LogbackServiceProvider";
  private static final Pattern UP = Pattern.compile("^\\{\\s*\"status\"\\s*:\\s*\"UP\"");
  private static final Pattern CRASHING_DOWN =
      Pattern.compile("\"" + CRASHING + "\"\\s*:\\s*\\{\\s*\"status\"\\s*:\\s*\"DOWN\"");

  private final TwoOutboxesScenario scenario;
  private final String label;
  private final long seed;
  private final Path directory;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private TwoOutboxesRun(TwoOutboxesScenario scenario, String label, long seed) {
    this.scenario = scenario;
    this.label = label;
    this.seed = seed;
    this.directory = Path.of("target", "chaos", label + "-" + Instant.now().getEpochSecond());
  }

  /**
   * Runs the scenario and reports; never throws because a promise was broken (the report says so).
   *
   * @param label names the run's directory under {@code target/chaos}
   * @param scenario what to inject
   * @param seed fixes which relays are killed and the writers' keys
   * @return the report
   */
  static TwoOutboxesReport run(String label, TwoOutboxesScenario scenario, long seed) {
    return new TwoOutboxesRun(scenario, label, seed).execute();
  }

  /** An outbox of the run: its database, the queue its messages arrive in, its writer. */
  private record Lane(String name, PostgresCluster database, ChaosConsumer consumer, ChildProcesses.Child writer) {}

  private TwoOutboxesReport execute() {
    long started = System.nanoTime();
    Path databases = Path.of("target", "chaos", "databases");
    try (ChildProcesses processes = new ChildProcesses(directory.resolve("logs"));
        PostgresCluster steadyDatabase = startAfterLeftovers(processes, databases);
        PostgresCluster crashingDatabase = PostgresCluster.start(processes, databases);
        ChaosConsumer steadyConsumer = new ChaosConsumer.Rabbit();
        ChaosConsumer crashingConsumer = new ChaosConsumer.Rabbit()) {
      String runLabel = "postgresql/rabbitmq/" + scenario.form() + "/two-outboxes";
      ChaosRun.log("run " + runLabel + " seed " + seed + " in " + directory.toAbsolutePath() + "; " + STEADY + " on "
          + steadyDatabase + ", " + CRASHING + " on " + crashingDatabase);
      ChaosRun.prepareOutbox(steadyDatabase, false);
      ChaosRun.prepareOutbox(crashingDatabase, false);
      Relays relays = new Relays(processes, steadyDatabase.jdbcUrl(), crashingDatabase.jdbcUrl());
      relays.startAll();
      relays.awaitAllReady();
      Lane steady = new Lane(STEADY, steadyDatabase, steadyConsumer, startWriter(processes, STEADY,
          steadyDatabase, steadyConsumer, seed));
      Lane crashing = new Lane(CRASHING, crashingDatabase, crashingConsumer, startWriter(processes, CRASHING,
          crashingDatabase, crashingConsumer, seed + 1));
      // the writers' own clocks start later, with their JVMs: they write at least until then
      Instant writersUntil = Instant.now().plus(scenario.writing().writeFor());
      awaitWriting(List.of(steady, crashing));
      // from the writers' first commits, not their processes' start: the rate before is taken while they write
      ChaosRun.Timeline timeline = new ChaosRun.Timeline();
      List<TwoOutboxesReport.Outage> outages = new ArrayList<>();
      List<Instant[]> outageTimes = new ArrayList<>();
      for (int c = 0; c < scenario.crashesAt().size(); c++) {
        timeline.at(scenario.crashesAt().get(c), "crash-restart the " + CRASHING + " outbox's database",
            () -> outageTimes.add(outage(crashingDatabase, relays, outages)));
      }
      Random random = new Random(seed);
      for (Duration at : scenario.killsAt()) {
        timeline.at(at, "kill a relay", () -> relays.killOne(random));
      }
      timeline.play(relays::supervise);
      awaitWriter(steady.writer());
      awaitWriter(crashing.writer());
      drain(List.of(steady, crashing), relays);
      ChaosRun.pause(Duration.ofSeconds(2)); // late arrivals after the last check, so they are counted as duplicates
      relays.killAll();
      ChaosReport steadyReport = judge(runLabel, steady, relays, started);
      ChaosReport crashingReport = judge(runLabel, crashing, relays, started);
      List<Instant> firstArrivals = firstArrivals(steadyConsumer);
      Instant firstOutage = outageTimes.get(0)[0];
      double before = TwoOutboxesReport.rate(firstArrivals, firstOutage.minus(scenario.baseline()), firstOutage);
      List<TwoOutboxesReport.Outage> measured = new ArrayList<>();
      for (TwoOutboxesReport.Outage outage : outages) {
        // only while the writers still wrote: after that the steady outbox's rate falls for want of messages
        Instant end = outage.until().isBefore(writersUntil) ? outage.until() : writersUntil;
        boolean measurable = !outage.from().plus(scenario.rateWindow()).isAfter(end);
        measured.add(new TwoOutboxesReport.Outage(outage.from(), outage.until(),
            measurable ? TwoOutboxesReport.rate(firstArrivals, outage.from(), end) : Double.NaN,
            measurable ? TwoOutboxesReport.windowRates(firstArrivals, outage.from(), end, scenario.rateWindow())
                : List.of(),
            outage.relaysWatched(), outage.namedDown(), outage.stayedUp(), outage.namedAfter()));
      }
      TwoOutboxesReport report = new TwoOutboxesReport(runLabel, steadyReport, crashingReport, before, measured,
          relays.kills, relays.crashes, Duration.ofNanos(System.nanoTime() - started).toSeconds());
      for (TwoOutboxesReport.Outage outage : report.outages()) {
        ChaosRun.log("outage " + outage.from() + " .. " + outage.until() + ": steady rate " + outage.rate()
            + "/s (before " + before + "/s), windows " + outage.windowRates() + ", named DOWN by "
            + outage.namedDown() + "/" + outage.relaysWatched() + " relays after " + outage.namedAfter()
            + (outage.stayedUp() ? "" : ", a relay ended on its own"));
      }
      ChaosRun.keepSummary(report.summary(), seed);
      return report;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static PostgresCluster startAfterLeftovers(ChildProcesses processes, Path databases) {
    ChaosDatabase.stopLeftovers(databases, processes);
    return PostgresCluster.start(processes, databases);
  }

  private ChildProcesses.Child startWriter(ChildProcesses processes, String outbox, ChaosDatabase database,
      ChaosConsumer consumer, long writerSeed) {
    return ChaosRun.startWriter(processes, "writer-" + outbox, ChaosRun.writerArguments("w-" + outbox, database,
        consumer.destination(), scenario.writing(), writerSeed));
  }

  /** Waits (bounded) until every lane's writer has committed a message. */
  private static void awaitWriting(List<Lane> lanes) {
    org.awaitility.Awaitility.await("every writer committing").atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(100)).until(() -> lanes.stream()
            .noneMatch(lane -> ChaosRun.readCommitOrder(lane.database()).isEmpty()));
  }

  private void awaitWriter(ChildProcesses.Child writer) {
    int exit = writer.awaitExit(scenario.writing().writeFor().plusMinutes(2));
    if (exit != 0) {
      throw new IllegalStateException("writer " + writer + " exited with " + exit + ", see " + writer.log());
    }
  }

  /**
   * Waits (bounded) until every relay is ready, stops the crashing outbox's database at once, watches every relay's readiness until the downtime is over and each
   * relay running named the outbox {@code DOWN} (or {@link TwoOutboxesScenario#LONGEST_OUTAGE} passed), then starts it
   * again.
   *
   * @return the outage's start and end
   */
  private Instant[] outage(PostgresCluster database, Relays relays, List<TwoOutboxesReport.Outage> outages) {
    relays.awaitAllReady(); // the crash meets relays that run, not one still starting after a kill
    Set<Integer> watched = relays.running();
    Instant from = Instant.now();
    database.crash();
    Set<Integer> named = new HashSet<>();
    boolean stayedUp = true;
    Duration namedAfter = null;
    long least = System.nanoTime() + scenario.downtime().toNanos();
    long most = System.nanoTime() + TwoOutboxesScenario.LONGEST_OUTAGE.toNanos();
    while (System.nanoTime() < most && (System.nanoTime() < least || named.size() < watched.size())) {
      for (int r : watched) {
        if (!relays.isAlive(r)) {
          stayedUp = false;
        } else if (!named.contains(r) && CRASHING_DOWN.matcher(relays.readiness(r)).find()) {
          named.add(r);
          if (named.size() == watched.size()) {
            namedAfter = Duration.between(from, Instant.now());
          }
        }
      }
      ChaosRun.pause(Duration.ofMillis(200)); // polling the relays' readiness
    }
    ChaosRun.log("the " + CRASHING + " outbox named DOWN by " + named.size() + "/" + watched.size()
        + " relays; restarting its database");
    database.startAfterCrash();
    Instant until = Instant.now();
    outages.add(new TwoOutboxesReport.Outage(from, until, 0, List.of(), watched.size(), named.size(), stayedUp,
        namedAfter));
    return new Instant[] {from, until};
  }

  /** Waits (bounded) until each outbox's consumer has every committed message and nothing waits in the outbox. */
  private void drain(List<Lane> lanes, Relays relays) {
    long deadline = System.nanoTime() + scenario.drainTimeout().toNanos();
    while (System.nanoTime() < deadline && !lanes.stream().allMatch(TwoOutboxesRun::drained)) {
      relays.supervise();
      ChaosRun.pause(Duration.ofSeconds(1));
    }
  }

  private static boolean drained(Lane lane) {
    int committed = ChaosRun.readCommitOrder(lane.database()).values().stream().mapToInt(List::size).sum();
    return new HashSet<>(lane.consumer().received()).size() >= committed && ChaosRun.waiting(lane.database()) == 0;
  }

  private ChaosReport judge(String runLabel, Lane lane, Relays relays, long started) {
    Map<String, List<UUID>> commitOrder = ChaosRun.readCommitOrder(lane.database());
    Set<UUID> rolledBack = ChaosRun.rolledBack(List.of(lane.writer()));
    List<UUID> received = ChaosRun.receivedPatiently(lane.consumer());
    ChaosReport.Delivery delivery = ChaosReport.judge(commitOrder, rolledBack, received);
    Map<String, Long> statuses = ChaosRun.statuses(lane.database());
    long stuck = statuses.getOrDefault("PENDING", 0L) + statuses.getOrDefault("FAILED", 0L)
        + statuses.getOrDefault("PARKED", 0L);
    delivery.examples().forEach(example -> ChaosRun.log("example (" + lane.name() + "): " + example));
    return new ChaosReport(runLabel + "/" + lane.name(), delivery.committed(), rolledBack.size(), received.size(),
        delivery.lost(), ChaosRun.markedDelivered(lane.database(), delivery.missing()),
        delivery.rolledBackDelivered(), delivery.unknownDelivered(), delivery.orderViolations(),
        delivery.duplicates(), delivery.lateCopies(), stuck, statuses.getOrDefault("QUARANTINED", 0L), 0, 0, 0,
        relays.kills, 0, relays.crashes, -1, Duration.ofNanos(System.nanoTime() - started).toSeconds(), -1, -1, -1,
        -1, null, -1);
  }

  /** @return the first arrival of every message the consumer received */
  private static List<Instant> firstArrivals(ChaosConsumer consumer) {
    return consumer.arrivalTimes().values().stream().map(times -> times.stream().min(Instant::compareTo).orElseThrow())
        .toList();
  }

  /** The relay-app processes, each with both outboxes and a server (readiness) on a port of its own. */
  private final class Relays {
    private final ChildProcesses processes;
    private final String steadyUrl;
    private final String crashingUrl;
    private final ChildProcesses.Child[] children;
    private final int[] ports;
    private final int[] incarnations;
    private int kills;
    private int crashes;

    Relays(ChildProcesses processes, String steadyUrl, String crashingUrl) {
      this.processes = processes;
      this.steadyUrl = steadyUrl;
      this.crashingUrl = crashingUrl;
      this.children = new ChildProcesses.Child[scenario.relays()];
      this.ports = new int[scenario.relays()];
      this.incarnations = new int[scenario.relays()];
    }

    void startAll() {
      for (int r = 0; r < children.length; r++) {
        start(r);
      }
    }

    private void start(int r) {
      String name = "relay-" + r + "-" + incarnations[r]++;
      ports[r] = ChaosDatabase.freePort();
      Path config = directory.resolve(name + ".yaml").toAbsolutePath();
      try {
        Files.createDirectories(directory);
        Files.writeString(config, configuration(name, ports[r]), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      children[r] = processes.startJvm(name, RelayAppMain.class, ChaosRun.childJvm(LOGBACK),
          List.of("run", "--config", config.toString()));
    }

    /** The relay app's configuration: both outboxes, one RabbitMQ transport, the suite's relay settings. */
    private String configuration(String name, int port) {
      return String.join("\n",
          "relay:",
          "  lease: " + scenario.lease().toMillis() + "ms",
          "  delivery-timeout: " + scenario.deliveryTimeout().toMillis() + "ms",
          "  batch-size: 100",
          "  poll-min: 5ms",
          "  poll-max: 200ms",
          "retry:",
          "  base: 100ms",
          "  cap: 1s",
          "  max-attempts: 5",
          "  give-up-after: 8s",
          "database:",
          "  table-prefix: " + ChaosRun.tablePrefix(),
          "  keep-delivered: 1h",
          "  pool-size: 6",
          "server:",
          "  port: " + port,
          "transports:",
          "  broker:",
          "    type: rabbitmq",
          "    host: 127.0.0.1",
          "    port: 5672",
          "    connection-name: chaos-" + name,
          "    connection-timeout: 2s",
          "    confirm-timeout: " + scenario.deliveryTimeout().toMillis() + "ms",
          "    recovery-interval: 500ms",
          "destinations:",
          "  '*': broker",
          "outboxes:",
          "  " + STEADY + ":",
          "    database:",
          "      url: '" + steadyUrl + "'",
          "  " + CRASHING + ":",
          "    database:",
          "      url: '" + crashingUrl + "'",
          "");
    }

    /** Waits (bounded) until every relay's readiness is {@code UP}: both outboxes read their database. */
    void awaitAllReady() {
      org.awaitility.Awaitility.await("every relay ready").atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(250)).until(() -> {
            supervise();
            for (int r = 0; r < children.length; r++) {
              if (!UP.matcher(readiness(r)).find()) {
                return false;
              }
            }
            return true;
          });
    }

    /** @return the body of relay {@code r}'s {@code /health/ready}, or empty when it does not answer */
    String readiness(int r) {
      try {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports[r] + "/health/ready"))
            .timeout(Duration.ofSeconds(2)).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
      } catch (IOException e) {
        return "";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    boolean isAlive(int r) {
      return children[r] != null && children[r].isAlive();
    }

    /** @return the relays running now */
    Set<Integer> running() {
      Set<Integer> running = new HashSet<>();
      for (int r = 0; r < children.length; r++) {
        if (isAlive(r)) {
          running.add(r);
        }
      }
      return running;
    }

    void killOne(Random random) {
      int r = random.nextInt(children.length);
      children[r].kill();
      kills++;
      start(r);
    }

    /** Restarts a relay that ended on its own, and counts it: the suite only ever kills. */
    void supervise() {
      for (int r = 0; r < children.length; r++) {
        if (children[r] != null && !children[r].isAlive()) {
          crashes++;
          ChaosRun.log("relay " + children[r] + " ended on its own; see " + children[r].log());
          start(r);
        }
      }
    }

    void killAll() {
      for (ChildProcesses.Child child : children) {
        if (child != null) {
          child.kill();
        }
      }
    }
  }
}
