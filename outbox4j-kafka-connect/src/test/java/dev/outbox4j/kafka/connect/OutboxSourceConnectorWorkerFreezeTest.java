package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox4j.Message;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.kafka.EmbeddedKafka;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Two Connect workers, each a process of its own, drain 4,000 entries with exactly-once support; the worker running
 * task 0 is stopped with SIGSTOP for 45 to 80 s (longer than the 40 s lease: its claims run out and the other worker's
 * tasks take them over) and let go on with SIGCONT, {@code outbox4j.connect.worker.freezes} times (profile
 * {@code connect-chaos}: 1). The frozen worker comes back to find its tasks moved and their producers fenced; what it
 * still holds must not land (its send window is re-checked before records leave a poll). A {@code read_committed}
 * judge then finds nothing lost, invented, duplicated or out of key order; the takeovers the tasks logged are reported.
 *
 * <p>Not in the default build: {@code mvn -B -ntp -pl outbox4j-kafka-connect test -Pconnect-chaos
 * -Dtest=OutboxSourceConnectorWorkerFreezeTest}.
 */
@EnabledIfSystemProperty(named = "outbox4j.connect.worker.freezes", matches = "[1-9][0-9]*")
@Timeout(value = 60, unit = TimeUnit.MINUTES)
class OutboxSourceConnectorWorkerFreezeTest {
  private static final EmbeddedKafka KAFKA = EmbeddedKafka.shared();
  private static final String PREFIX = "connect_freeze_";
  private static final String NAME = "freeze";
  private static final int ENTRIES = 4_000;
  private static final Pattern TAKEN_OVER =
      Pattern.compile("taken over: (\\d+) entries claimed in doubt .*, (\\d+) settled as landed, (\\d+) sent again");
  private static final Pattern SETTLED_ON_START =
      Pattern.compile("outbox task slot \\d+ started; (\\d+) entries of its last committed batch to settle");

  @Test
  void a_worker_frozen_past_the_lease_loses_nothing_and_duplicates_nothing_with_exactly_once() throws Exception {
    int freezes = Integer.getInteger("outbox4j.connect.worker.freezes");
    String topic = "connect-freeze-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 4);
    List<Message> messages = OutboxSourceConnectorExactlyOnceTest.messages(ENTRIES, 200, "k");
    Random random = new Random(freezes);
    AtomicInteger restarts = new AtomicInteger();
    long started = System.nanoTime();
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh(PREFIX);
        Judge judge = new Judge(KAFKA, topic);
        WorkerProcesses workers = WorkerProcesses.start(ConnectWorkers.workerSettings(KAFKA, true), 2)) {
      int chunk = ENTRIES / (freezes + 1);
      outbox.write(messages.subList(0, chunk));
      int written = chunk;
      Map<String, String> config = OutboxSourceConnectorExactlyOnceTest.shortLeaseConfig(PREFIX, topic, 2);
      workers.rest(0).putConnector(NAME, config);
      workers.rest(0).awaitRunning(NAME, 2);
      StringBuilder frozen = new StringBuilder();
      for (int freeze = 0; freeze < freezes; freeze++) {
        int next = freeze == freezes - 1 ? ENTRIES : written + chunk;
        outbox.write(messages.subList(written, next));
        written = next;
        judge.awaitProgress("progress before freeze " + freeze, 200, written, Duration.ofMinutes(5));
        int victim = workerOfTask0(workers);
        ConnectRest other = workers.rest(1 - victim);
        Duration hold = Duration.ofSeconds(45 + random.nextInt(36));
        int atFreeze = judge.poll();
        workers.freeze(victim);
        try {
          OutboxSourceConnectorExactlyOnceTest.hold("worker " + victim + " frozen", hold);
        } finally {
          workers.thaw(victim);
        }
        frozen.append(String.format(Locale.ROOT, "%sworker %d %d s with %d of %d arrived", freeze == 0 ? "" : ", ",
            victim, hold.toSeconds(), atFreeze, written));
        judge.awaitAtLeast("progress after freeze " + freeze, Math.min(judge.poll() + 200, written),
            Duration.ofMinutes(5), () -> restarts.addAndGet(other.restartFailedTasks(NAME)));
      }
      judge.awaitAtLeast("every entry delivered", ENTRIES, Duration.ofMinutes(5),
          () -> restarts.addAndGet(workers.rest(0).restartFailedTasks(NAME)));
      Awaitility.await("the outbox drained").atMost(Duration.ofMinutes(2)).until(() -> outbox.pending() == 0);
      judge.poll();

      int[] takenOver = takenOver(workers);
      Judge.Verdict verdict = judge.verdict(OutboxSourceConnectorExactlyOnceTest.payloads(messages));
      System.out.printf(Locale.ROOT, "connect worker freeze: workers=2 tasks=2, lease 40 s, frozen %s; taken over"
          + " %d entries in doubt (%d settled as landed, %d sent again); %d entries of a committed batch settled by a"
          + " task's next instance on start; %d failed tasks restarted through REST; %d s; %s%n", frozen,
          takenOver[0], takenOver[1], takenOver[2], takenOver[3], restarts.get(),
          Duration.ofNanos(System.nanoTime() - started).toSeconds(), verdict);
      assertThat(verdict).isEqualTo(new Judge.Verdict(ENTRIES, 0, 0, 0, 0));
    }
  }

  /** @return the worker that runs task 0 now */
  private static int workerOfTask0(WorkerProcesses workers) {
    AtomicInteger found = new AtomicInteger(-1);
    Awaitility.await("task 0 placed").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
        .ignoreExceptions().until(() -> {
          for (JsonNode task : workers.rest(0).status(NAME).path("tasks")) {
            if (task.path("id").asInt() == 0 && "RUNNING".equals(task.path("state").asText())) {
              for (int i = 0; i < workers.count(); i++) {
                if (workers.id(i).equals(task.path("worker_id").asText())) {
                  found.set(i);
                  return true;
                }
              }
            }
          }
          return false;
        });
    return found.get();
  }


  /**
   * @return entries claimed in doubt, of them settled as landed, and sent again, and entries settled on start from the
   *     slot's committed offset, as the workers' tasks logged them
   */
  private static int[] takenOver(WorkerProcesses workers) throws IOException {
    int[] sums = new int[4];
    for (int i = 0; i < workers.count(); i++) {
      for (String line : workers.log(i)) {
        Matcher matcher = TAKEN_OVER.matcher(line);
        if (matcher.find()) {
          for (int group = 0; group < 3; group++) {
            sums[group] += Integer.parseInt(matcher.group(group + 1));
          }
        }
        Matcher start = SETTLED_ON_START.matcher(line);
        if (start.find()) {
          sums[3] += Integer.parseInt(start.group(1));
        }
      }
    }
    return sums;
  }
}
