package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.kafka.EmbeddedKafka;
import dev.outbox4j.testkit.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Two Connect workers, each a process of its own, reach the broker only through a {@link TcpProxy}; the proxy is cut
 * for 20 s, {@code outbox4j.connect.broker.outages} times (profile {@code connect-chaos}: 3), while 8,000 entries are
 * drained with exactly-once support. The workers lose their group and their tasks' producers lose their transactions;
 * after each outage the group forms again and the tasks are placed again (after {@code scheduled.rebalance.max.delay.ms},
 * 2 s here). A task whose producer was fenced meanwhile ({@code InvalidProducerEpochException}) is {@code FAILED} and
 * stays so until it is restarted: the test restarts it through the REST API, as an operator does. A
 * {@code read_committed} judge then finds nothing lost, invented, duplicated or out of key order.
 *
 * <p>Not in the default build: {@code mvn -B -ntp -pl outbox4j-kafka-connect test -Pconnect-chaos
 * -Dtest=OutboxSourceConnectorBrokerOutageTest}.
 */
@EnabledIfSystemProperty(named = "outbox4j.connect.broker.outages", matches = "[1-9][0-9]*")
@Timeout(value = 60, unit = TimeUnit.MINUTES)
class OutboxSourceConnectorBrokerOutageTest {
  private static final EmbeddedKafka KAFKA = EmbeddedKafka.shared();
  private static final String PREFIX = "connect_outage_";
  private static final String NAME = "outage";
  private static final int ENTRIES = 8_000;
  private static final Duration OUTAGE = Duration.ofSeconds(20);

  @Test
  void broker_outages_lose_nothing_and_duplicate_nothing_with_exactly_once() throws Exception {
    int outages = Integer.getInteger("outbox4j.connect.broker.outages");
    String topic = "connect-outage-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 4);
    List<Message> messages = OutboxSourceConnectorExactlyOnceTest.messages(ENTRIES, 200, "k");
    TcpProxy proxy = KAFKA.proxy();
    Map<String, String> settings = ConnectWorkers.workerSettings(KAFKA, true);
    settings.put("bootstrap.servers", KAFKA.proxiedBootstrapServers());
    AtomicInteger restarts = new AtomicInteger();
    long started = System.nanoTime();
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh(PREFIX);
        Judge judge = new Judge(KAFKA, topic);
        WorkerProcesses workers = WorkerProcesses.start(settings, 2)) {
      int chunk = ENTRIES / (outages + 1);
      outbox.write(messages.subList(0, chunk));
      int written = chunk;
      Map<String, String> config = OutboxSourceConnectorExactlyOnceTest.shortLeaseConfig(PREFIX, topic, 2);
      ConnectRest rest = workers.rest(0);
      rest.putConnector(NAME, config);
      rest.awaitRunning(NAME, 2);
      Runnable restartFailed = () -> restarts.addAndGet(rest.restartFailedTasks(NAME));
      try {
        for (int outage = 0; outage < outages; outage++) {
          int next = outage == outages - 1 ? ENTRIES : written + chunk;
          outbox.write(messages.subList(written, next));
          written = next;
          int target = Math.min(judge.poll() + 200, written);
          judge.awaitAtLeast("progress before outage " + outage, target, Duration.ofMinutes(5), restartFailed);
          proxy.cut();
          OutboxSourceConnectorExactlyOnceTest.hold("outage " + outage, OUTAGE);
          proxy.restore();
        }
      } finally {
        proxy.restore(); // the shared broker's proxy: never left cut
      }
      judge.awaitAtLeast("every entry delivered", ENTRIES, Duration.ofMinutes(10), restartFailed);
      Awaitility.await("the outbox drained").atMost(Duration.ofMinutes(2)).until(() -> outbox.pending() == 0);
      judge.poll();

      Judge.Verdict verdict = judge.verdict(OutboxSourceConnectorExactlyOnceTest.payloads(messages));
      System.out.printf(Locale.ROOT, "connect broker outages: workers=2 tasks=2, %d cuts of %d s, %d failed tasks"
          + " restarted through REST; %d s; %s%n", outages, OUTAGE.toSeconds(), restarts.get(),
          Duration.ofNanos(System.nanoTime() - started).toSeconds(), verdict);
      assertThat(verdict).isEqualTo(new Judge.Verdict(ENTRIES, 0, 0, 0, 0));
    }
  }
}
