package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Three Connect workers, each a process of its own, drain one outbox with {@code tasks.max=2} (or
 * {@code -Doutbox4j.connect.chaos.tasks}: with 1, the only task claims ahead) and exactly-once support while a random
 * worker is SIGKILLed and started again, {@code outbox4j.connect.chaos.kills} times (profile {@code connect-chaos}: 5;
 * {@code connect-chaos-long}: 50); entries keep being written meanwhile. A
 * {@code read_committed} judge then counts lost, invented, duplicated and out-of-order records: all must be 0.
 * {@code -Doutbox4j.connect.chaos.exactlyOnce=false} runs the workers without exactly-once support and reports the
 * duplicates the kills caused (lost and invented must still be 0).
 *
 * <p>Not in the default build (each kill costs a worker's start and, for a batch the killed worker had claimed but not
 * committed, up to a lease): {@code mvn -B -ntp -pl outbox4j-kafka-connect -am test -Pconnect-chaos
 * -Dtest=OutboxSourceConnectorWorkerKillTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@EnabledIfSystemProperty(named = "outbox4j.connect.chaos.kills", matches = "[1-9][0-9]*")
@Timeout(value = 90, unit = TimeUnit.MINUTES) // a worker process takes up to minutes to join on a loaded machine
class OutboxSourceConnectorWorkerKillTest {
  private static final EmbeddedKafka KAFKA = EmbeddedKafka.shared();
  private static final String PREFIX = "connect_kill_";

  @Test
  void sigkilled_workers_lose_nothing_and_duplicate_nothing_with_exactly_once() throws Exception {
    int kills = Integer.getInteger("outbox4j.connect.chaos.kills");
    boolean exactlyOnce = !"false".equals(System.getProperty("outbox4j.connect.chaos.exactlyOnce"));
    int tasks = Integer.getInteger("outbox4j.connect.chaos.tasks", 2);
    String topic = "connect-kill-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 4);
    int batches = 2 * kills + 4;
    List<Message> messages = OutboxSourceConnectorExactlyOnceTest.messages(batches * 500, 100, "k");
    Random random = new Random(kills);
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh(PREFIX);
        Judge judge = new Judge(KAFKA, topic);
        WorkerProcesses workers = WorkerProcesses.start(ConnectWorkers.workerSettings(KAFKA, exactlyOnce), 3)) {
      outbox.write(messages.subList(0, 2_000));
      Map<String, String> config = OutboxSourceConnectorExactlyOnceTest.connectorConfig(PREFIX, topic, tasks);
      if (!exactlyOnce) {
        config.remove("exactly.once.support");
      }
      config.put("producer.override.transaction.timeout.ms", "10000");
      config.put(OutboxSourceConfig.LEASE_MS, "40000");
      workers.rest(0).putConnector("kill", config);
      workers.rest(0).awaitRunning("kill", tasks);

      int written = 2_000;
      long[] back = new long[kills]; // kill until the worker answers again
      long started = System.nanoTime();
      for (int kill = 0; kill < kills; kill++) {
        int next = Math.min(messages.size(), written + (messages.size() - 2_000) / kills);
        outbox.write(messages.subList(written, next));
        written = next;
        int before = judge.poll();
        Awaitility.await("progress before kill " + kill).atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(20)).until(() -> judge.poll() > before + 50);
        int victim = random.nextInt(workers.count());
        long killed = System.nanoTime();
        workers.kill(victim);
        workers.restart(victim);
        back[kill] = System.nanoTime() - killed;
      }
      long killing = Duration.ofNanos(System.nanoTime() - started).toSeconds();
      outbox.write(messages.subList(written, messages.size()));
      Awaitility.await("every entry delivered").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(50))
          .until(() -> judge.poll() >= messages.size() && outbox.pending() == 0);
      judge.poll();
      long drained = Duration.ofNanos(System.nanoTime() - started).toSeconds() - killing;
      Judge.Verdict verdict = judge.verdict(OutboxSourceConnectorExactlyOnceTest.payloads(messages));
      System.out.printf(Locale.ROOT, "connect chaos: workers=3 tasks=%d exactly once %s, kills=%d in %d s (%.1f s a"
          + " kill), a killed worker answering again after %s; drained %d s later; %s%n", tasks,
          exactlyOnce ? "on" : "off", kills, killing, (double) killing / kills, seconds(back), drained, verdict);
      if (exactlyOnce) {
        assertThat(verdict).isEqualTo(new Judge.Verdict(messages.size(), 0, 0, 0, 0));
      } else { // at least once: nothing lost or invented; the duplicates a kill caused are reported above
        assertThat(verdict.lost()).isZero();
        assertThat(verdict.invented()).isZero();
      }
    }
  }

  /** @return mean and max of the durations, in seconds */
  private static String seconds(long[] nanos) {
    double mean = Arrays.stream(nanos).average().orElse(0) / 1e9;
    double max = Arrays.stream(nanos).max().orElse(0) / 1e9;
    return String.format(Locale.ROOT, "mean %.1f s, max %.1f s", mean, max);
  }
}
