package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Three Connect workers, each a process of its own, drain one outbox with {@code tasks.max=2} and exactly-once
 * support while a random worker is SIGKILLed and started again, {@code outbox4j.connect.chaos.kills} times (profile
 * {@code connect-chaos}: 5; {@code connect-chaos-long}: 50); entries keep being written meanwhile. A
 * {@code read_committed} judge then counts lost, invented, duplicated and out-of-order records: all must be 0.
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
    String topic = "connect-kill-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 4);
    int batches = 2 * kills + 4;
    List<Message> messages = OutboxSourceConnectorExactlyOnceTest.messages(batches * 500, 100, "k");
    Random random = new Random(kills);
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh(PREFIX);
        Judge judge = new Judge(KAFKA, topic);
        WorkerProcesses workers = WorkerProcesses.start(ConnectWorkers.workerSettings(KAFKA, true), 3)) {
      outbox.write(messages.subList(0, 2_000));
      Map<String, String> config = OutboxSourceConnectorExactlyOnceTest.connectorConfig(PREFIX, topic, 2);
      config.put("producer.override.transaction.timeout.ms", "10000");
      config.put(OutboxSourceConfig.LEASE_MS, "40000");
      workers.rest(0).putConnector("kill", config);
      workers.rest(0).awaitRunning("kill", 2);

      int written = 2_000;
      for (int kill = 0; kill < kills; kill++) {
        int next = Math.min(messages.size(), written + (messages.size() - 2_000) / kills);
        outbox.write(messages.subList(written, next));
        written = next;
        int before = judge.poll();
        Awaitility.await("progress before kill " + kill).atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(20)).until(() -> judge.poll() > before + 50);
        int victim = random.nextInt(workers.count());
        workers.kill(victim);
        workers.restart(victim);
      }
      outbox.write(messages.subList(written, messages.size()));
      Awaitility.await("every entry delivered").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(50))
          .until(() -> judge.poll() >= messages.size() && outbox.pending() == 0);
      judge.poll();
      Judge.Verdict verdict = judge.verdict(OutboxSourceConnectorExactlyOnceTest.payloads(messages));
      System.out.printf("connect chaos: workers=3 tasks=2 kills=%d %s%n", kills, verdict);
      assertThat(verdict).isEqualTo(new Judge.Verdict(messages.size(), 0, 0, 0, 0));
    }
  }
}
