package dev.outbox4j.quarkus.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.quarkus.OutboxTransactionRequiredException;
import dev.outbox4j.quarkus.TransactionalOutbox;
import dev.outbox4j.quarkus.runtime.OutboxReadinessCheck;
import dev.outbox4j.quarkus.runtime.RelayRuntime;
import dev.outbox4j.testkit.TcpProxy;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One Quarkus application on the extension (booted once for all of these tests), its outbox in this JVM's PostgreSQL
 * database, its relay publishing to the machine's RabbitMQ through a proxy the tests cut and stall. The graceful
 * shutdown runs last: it closes the relay.
 */
@QuarkusTest
@WithTestResource(PostgresAndRabbitMq.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OutboxExtensionTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration RECOVERY = Duration.ofSeconds(90);
  @RegisterExtension static final TestQueues queues = new TestQueues();

  @Inject Orders orders;
  @Inject TransactionalOutbox outbox;
  @Inject JdbcOutboxStore store;
  @Inject RelayRuntime relayRuntime;
  @Inject Relay relay;
  @Inject @Readiness OutboxReadinessCheck readiness;
  @Inject SmallRyeHealthReporter health;
  @Inject MeterRegistry registry;

  @TestHTTPResource("/q/outbox4j/quarantined") URI quarantineListing;
  TcpProxy rabbit;

  @Test
  @Order(1)
  void a_message_written_in_a_transaction_is_published_after_commit() {
    TestQueues.Queue queue = queues.queue("commit");
    orders.place("order-1", queue.destination());

    await().atMost(WAIT).until(() -> queue.received().contains("order-1"));
    assertThat(orders.exists("order-1")).isTrue();
    assertThat(relay.isRunning()).isTrue();
    assertThat(relayRuntime.wakeUpChannel()).as("the PostgreSQL wake-up listener runs").isPresent();
  }

  @Test
  @Order(2)
  void a_rolled_back_transaction_sends_nothing() {
    TestQueues.Queue queue = queues.queue("rollback");
    assertThatThrownBy(() -> orders.placeThenFail("order-rolled-back", queue.destination()))
        .isInstanceOf(IllegalStateException.class);
    orders.place("order-after", queue.destination());

    await().atMost(WAIT).until(() -> queue.received().contains("order-after"));
    assertThat(queue.received()).containsExactly("order-after");
    assertThat(orders.exists("order-rolled-back")).isFalse();
  }

  @Test
  @Order(3)
  void a_write_outside_a_transaction_is_refused_with_the_reason() {
    Message message = Message.builder().withDestination("/nowhere").withPayload("x").build();

    assertThatThrownBy(() -> outbox.write(message))
        .isInstanceOf(OutboxTransactionRequiredException.class)
        .hasMessage("no JTA transaction on the outbox's datasource is in progress (none is active); nothing was "
            + "written. Write inside a @Transactional method, or set "
            + "outbox4j.write.without-transaction=own-transaction");
  }

  @Test
  @Order(4)
  void each_key_is_published_in_commit_order_across_concurrent_transactions() throws Exception {
    TestQueues.Queue queue = queues.queue("order");
    int threads = 6;
    int perThread = 15;
    List<String> keys = List.of("k0", "k1", "k2");
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(pool.submit(() -> IntStream.range(0, perThread)
            .forEach(i -> orders.placeCounted(keys.get((thread + i) % keys.size()), queue.destination()))));
      }
      for (Future<?> future : done) {
        future.get();
      }
    } finally {
      pool.shutdown();
    }

    await().atMost(WAIT).until(() -> queue.received().size() == threads * perThread);
    Map<String, List<Long>> countsByKey = new LinkedHashMap<>();
    for (String payload : queue.received()) {
      String[] parts = payload.split(":");
      countsByKey.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(Long.parseLong(parts[1]));
    }
    assertThat(countsByKey).hasSize(keys.size());
    countsByKey.forEach((key, counts) -> assertThat(counts).as(key)
        .isEqualTo(IntStream.rangeClosed(1, counts.size()).mapToObj(Long::valueOf).toList()));
  }

  @Test
  @Order(5)
  void a_broker_outage_pauses_the_destination_in_health_and_quarantines_nothing() {
    TestQueues.Queue queue = queues.queue("outage");
    assertThat(readiness.call().getData().orElseThrow()).doesNotContainKey("pausedDestinations");
    rabbit.cut();
    try {
      for (int i = 0; i < 20; i++) {
        orders.place("outage-" + i, queue.destination());
      }
      await().atMost(WAIT).until(() -> readiness.call().getData().orElseThrow().containsKey("pausedDestinations"));
      HealthCheckResponse during = readiness.call();
      assertThat(during.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
      assertThat(during.getData().orElseThrow()).containsEntry("degraded", true)
          .containsEntry("pausedDestinations", queue.destination());
      assertThat(health.getReadiness().getPayload().toString()).contains("pausedDestinations");
      assertThat(registry.get("outbox4j.destination.paused").tag("destination", queue.destination()).gauge().value())
          .isEqualTo(1);
    } finally {
      rabbit.restore();
    }

    // A paused destination is probed with a backoff of up to 30 s (RelayBuilder.DEFAULT_OUTAGE_CAP).
    await().atMost(RECOVERY).until(() -> queue.received().size() == 20);
    assertThat(store.stats(Instant.now()).quarantined()).isZero();
    assertThat(registry.get("outbox4j.quarantined").counter().count()).isZero();
    await().atMost(WAIT).until(() -> !readiness.call().getData().orElseThrow().containsKey("pausedDestinations"));
  }

  @Test
  @Order(6)
  void liveness_and_readiness_are_up_while_the_relay_runs() {
    assertThat(health.getLiveness().getPayload().toString()).contains("outbox4j-relay").contains("running");
    assertThat(health.getReadiness().isDown()).isFalse();
    assertThat(registry.get("outbox4j.delivered").counter().count()).isPositive();
  }

  @Test
  @Order(7)
  void the_quarantine_listing_answers_404_unless_switched_on() throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(quarantineListing).build(),
        HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(response.body()).contains("outbox4j.endpoint.enabled=true");
  }

  @Test
  @Order(100)
  void closing_the_relay_with_deliveries_unconfirmed_marks_none_delivered() {
    TestQueues.Queue queue = queues.queue("shutdown");
    rabbit.stall();
    try {
      List<UUID> ids = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        ids.add(orders.place("shutdown-" + i, queue.destination()));
      }
      await().atMost(WAIT).until(() -> store.stats(Instant.now()).inFlight() > 0);

      relay.close(); // what the ShutdownEvent observer does first, with outbox4j.relay.shutdown-grace=1s

      assertThat(relay.isRunning()).isFalse();
      for (UUID id : ids) {
        assertThat(store.find(id)).as("entry %s, unconfirmed, is still in the outbox (delivered ones are deleted)", id)
            .hasValueSatisfying(entry -> assertThat(entry.status()).isNotEqualTo(EntryStatus.DELIVERED));
      }
    } finally {
      rabbit.resume();
    }
  }
}
