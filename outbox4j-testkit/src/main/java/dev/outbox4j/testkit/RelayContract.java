package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.BatchReport;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayBuilder;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RelayResult;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Transport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay contract (SPEC §4), run on any store: batches, poison isolation, the retry schedule, quarantine, graceful
 * shutdown and per-key order under concurrent delivery. Subclass it and implement {@link #newStore}.
 *
 * <p>Retry schedules run on a {@link SettableClock}: no test sleeps to wait for a backoff.
 */
public abstract class RelayContract {
  /** Always draws 0.5, so full jitter halves each delay exactly. */
  private static final RandomGenerator HALF = () -> Long.MIN_VALUE;

  /** The clock shared by the store and the relay. */
  protected SettableClock clock;
  private OutboxStore store;

  /**
   * @param clock the clock the store must use
   * @return a new, EMPTY store that deletes on delivery
   */
  protected abstract OutboxStore newStore(Clock clock);

  @BeforeEach
  final void createStore() {
    clock = SettableClock.atFixedStart();
    store = newStore(clock);
  }

  /** @return the store of the current test */
  protected final OutboxStore store() {
    return store;
  }

  private RelayBuilder relay(Transport transport) {
    return Relay.builder(store, transport).withClock(clock).withRandom(HALF);
  }

  private UUID write(String key, String payload) {
    return store.enqueue(Message.builder().withDestination("orders").withOrderingKey(key).withPayload(payload).build())
        .id();
  }

  private static String text(Message message) {
    return new String(message.payload(), java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  public final void flush_delivers_what_is_claimable_and_reports_the_counts() {
    List<String> received = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 10; i++) {
      write(null, "m" + i);
    }
    Relay relay = relay(InProcessTransport.consuming(m -> received.add(text(m)))).withBatchSize(4).build();

    RelayResult first = relay.flush();

    assertThat(first).isEqualTo(new RelayResult(4, 4, 0, 0, 0));
    assertThat(relay.drain(10)).isEqualTo(new RelayResult(6, 6, 0, 0, 0));
    assertThat(received).containsExactlyInAnyOrder("m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9");
    assertThat(store.stats(clock.instant()).pending()).isZero();
  }

  @Test
  public final void drain_stops_after_max_passes() {
    for (int i = 0; i < 10; i++) {
      write(null, "m" + i);
    }
    Relay relay = relay(InProcessTransport.consuming(m -> { })).withBatchSize(3).build();

    assertThat(relay.drain(2).delivered()).isEqualTo(6);
    assertThat(relay.drain(100).delivered()).isEqualTo(4);
    assertThat(relay.drain(100)).isEqualTo(RelayResult.EMPTY);
  }

  @Test
  public final void a_poisoned_entry_does_not_hold_up_the_rest_of_its_batch() {
    UUID poison = write("A", "poison");
    UUID sameKeyAfterPoison = write("A", "after");
    List<String> received = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 5; i++) {
      write("K" + i, "ok" + i);
    }
    Relay relay = relay(InProcessTransport.of(m -> {
      if (m.id().equals(poison)) {
        throw new IllegalStateException("cannot serialise");
      }
      received.add(text(m));
      return DeliveryOutcome.delivered();
    })).build();

    RelayResult result = relay.flush();

    assertThat(result.delivered()).isEqualTo(5);
    assertThat(result.failed()).isEqualTo(1);
    assertThat(received).containsExactlyInAnyOrder("ok0", "ok1", "ok2", "ok3", "ok4");
    OutboxEntry failed = store.find(poison).orElseThrow();
    assertThat(failed.status()).isEqualTo(EntryStatus.FAILED);
    assertThat(failed.lastError()).contains("cannot serialise");
    assertThat(store.find(sameKeyAfterPoison).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
  }

  @Test
  public final void a_retryable_failure_is_retried_on_the_linear_schedule() {
    UUID id = write(null, "m");
    AtomicInteger calls = new AtomicInteger();
    Relay relay = relay(InProcessTransport.of(m -> calls.incrementAndGet() < 3
            ? DeliveryOutcome.retryable("503 unavailable")
            : DeliveryOutcome.delivered()))
        .withRetryPolicy(RetryPolicy.linear().withBase(Duration.ofSeconds(10)).withCap(Duration.ofSeconds(15))
            .withMaxAttempts(5).build())
        .build();
    Instant start = clock.instant();

    assertThat(relay.flush().failed()).isEqualTo(1);
    OutboxEntry afterFirst = store.find(id).orElseThrow();
    assertThat(afterFirst.attempts()).isEqualTo(1);
    assertThat(afterFirst.lastError()).isEqualTo("503 unavailable");
    assertThat(afterFirst.availableAt()).isEqualTo(start.plusSeconds(10));

    clock.advance(Duration.ofSeconds(9));
    assertThat(relay.flush()).isEqualTo(RelayResult.EMPTY);
    clock.advance(Duration.ofSeconds(1));
    assertThat(relay.flush().failed()).isEqualTo(1);
    assertThat(store.find(id).orElseThrow().availableAt()).isEqualTo(clock.instant().plusSeconds(15)); // capped

    clock.advance(Duration.ofSeconds(15));
    assertThat(relay.flush().delivered()).isEqualTo(1);
    assertThat(calls.get()).isEqualTo(3);
    assertThat(store.find(id)).isEmpty();
  }

  @Test
  public final void exponential_backoff_grows_by_the_multiplier_up_to_the_cap_with_full_jitter() {
    UUID id = write(null, "m");
    Relay relay = relay(InProcessTransport.of(m -> DeliveryOutcome.retryable("down")))
        .withRetryPolicy(RetryPolicy.exponential().withBase(Duration.ofSeconds(2)).withMultiplier(3)
            .withCap(Duration.ofSeconds(30)).withMaxAttempts(10).build())
        .build();
    // Jitter draws 0.5: delays are half of 2 s, 6 s, 18 s, then half of the 30 s cap.
    List<Duration> expected = List.of(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(9),
        Duration.ofSeconds(15), Duration.ofSeconds(15));

    List<Duration> observed = new ArrayList<>();
    for (int i = 0; i < expected.size(); i++) {
      Instant failedAt = clock.instant();
      assertThat(relay.flush().failed()).isEqualTo(1);
      Instant next = store.find(id).orElseThrow().availableAt();
      observed.add(Duration.between(failedAt, next));
      clock.set(next);
    }

    assertThat(observed).containsExactlyElementsOf(expected);
  }

  @Test
  public final void a_delay_requested_by_the_transport_is_honoured() {
    UUID id = write(null, "m");
    Relay relay = relay(InProcessTransport.of(m -> DeliveryOutcome.retryableAfter("429", Duration.ofMinutes(2))))
        .withRetryPolicy(RetryPolicy.linear().withBase(Duration.ofSeconds(1)).build())
        .build();

    relay.flush();

    assertThat(store.find(id).orElseThrow().availableAt()).isEqualTo(clock.instant().plus(Duration.ofMinutes(2)));
  }

  @Test
  public final void exhausted_attempts_quarantine_the_entry_with_the_reason() {
    UUID id = write("A", "m");
    UUID blocked = write("A", "next");
    List<String> quarantineReasons = new CopyOnWriteArrayList<>();
    Relay relay = relay(InProcessTransport.of(m -> m.id().equals(id)
            ? DeliveryOutcome.retryable("connection refused")
            : DeliveryOutcome.delivered()))
        .withRetryPolicy(RetryPolicy.linear().withBase(Duration.ofSeconds(1)).withMaxAttempts(3).build())
        .onEvent(new RelayListener() {
          @Override
          public void onQuarantined(OutboxEntry entry, String reason) {
            quarantineReasons.add(reason);
          }
        })
        .build();

    RelayResult total = RelayResult.EMPTY;
    for (int i = 0; i < 5; i++) {
      total = total.plus(relay.flush());
      clock.advance(Duration.ofMinutes(1));
    }

    assertThat(total.failed()).isEqualTo(2);
    assertThat(total.quarantined()).isEqualTo(1);
    assertThat(total.delivered()).isZero();
    OutboxEntry entry = store.find(id).orElseThrow();
    assertThat(entry.status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(entry.attempts()).isEqualTo(3);
    assertThat(entry.quarantineReason()).contains("3 attempts").contains("connection refused");
    assertThat(quarantineReasons).singleElement().asString().contains("connection refused");
    assertThat(store.find(blocked).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
  }

  @Test
  public final void a_permanent_failure_quarantines_at_once_with_the_reason() {
    UUID id = write(null, "m");
    Relay relay = relay(InProcessTransport.of(m -> DeliveryOutcome.permanent("404 no such endpoint"))).build();

    RelayResult result = relay.flush();

    assertThat(result.quarantined()).isEqualTo(1);
    OutboxEntry entry = store.find(id).orElseThrow();
    assertThat(entry.status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(entry.attempts()).isEqualTo(1);
    assertThat(entry.quarantineReason()).contains("404 no such endpoint");
  }

  @Test
  public final void a_delivery_that_is_never_confirmed_times_out_as_a_retryable_failure() {
    UUID id = write(null, "m");
    Transport silent = message -> new CompletableFuture<>();
    Relay relay = relay(silent).withDeliveryTimeout(Duration.ofMillis(200)).build();

    RelayResult result = relay.flush();

    assertThat(result.failed()).isEqualTo(1);
    OutboxEntry entry = store.find(id).orElseThrow();
    assertThat(entry.status()).isEqualTo(EntryStatus.FAILED);
    assertThat(entry.lastError()).contains("no confirmation");
  }

  @Test
  public final void the_listener_sees_every_outcome_and_the_batch_timings() {
    UUID ok = write(null, "ok");
    UUID retry = write(null, "retry");
    UUID bad = write(null, "bad");
    Map<String, UUID> events = new ConcurrentHashMap<>();
    List<BatchReport> batches = new CopyOnWriteArrayList<>();
    Relay relay = relay(InProcessTransport.of(m -> m.id().equals(ok) ? DeliveryOutcome.delivered()
            : m.id().equals(retry) ? DeliveryOutcome.retryable("later") : DeliveryOutcome.permanent("never")))
        .onEvent(new RelayListener() {
          @Override
          public void onDelivered(OutboxEntry entry, Duration deliveryTime) {
            events.put("delivered", entry.id());
          }

          @Override
          public void onFailed(OutboxEntry entry, String error, Instant nextAttemptAt) {
            events.put("failed", entry.id());
          }

          @Override
          public void onQuarantined(OutboxEntry entry, String reason) {
            events.put("quarantined", entry.id());
          }

          @Override
          public void onBatch(BatchReport report) {
            batches.add(report);
          }
        })
        .build();

    relay.flush();

    assertThat(events).containsEntry("delivered", ok).containsEntry("failed", retry).containsEntry("quarantined", bad);
    assertThat(batches).singleElement().satisfies(b -> {
      assertThat(b.result()).isEqualTo(new RelayResult(3, 1, 1, 1, 0));
      assertThat(b.claimTime().isNegative()).isFalse();
    });
  }

  @Test
  public final void per_key_order_holds_under_concurrent_delivery_by_several_relays() throws Exception {
    int keys = 20;
    int perKey = 15;
    Map<String, List<String>> written = new HashMap<>();
    for (int i = 0; i < perKey; i++) {
      for (int k = 0; k < keys; k++) {
        String key = "key-" + k;
        String payload = key + "#" + i;
        write(key, payload);
        written.computeIfAbsent(key, x -> new ArrayList<>()).add(payload);
      }
    }
    Map<String, List<String>> delivered = new ConcurrentHashMap<>();
    Set<String> inFlightKeys = ConcurrentHashMap.newKeySet();
    List<String> overlaps = Collections.synchronizedList(new ArrayList<>());
    Transport transport = InProcessTransport.consuming(m -> {
      String key = m.orderingKey().orElseThrow();
      if (!inFlightKeys.add(key)) {
        overlaps.add(key);
      }
      try {
        Thread.onSpinWait();
        delivered.computeIfAbsent(key, x -> Collections.synchronizedList(new ArrayList<>())).add(text(m));
      } finally {
        inFlightKeys.remove(key);
      }
    });
    ExecutorService deliveryPool = Executors.newFixedThreadPool(8);
    ExecutorService relays = Executors.newFixedThreadPool(3);
    try {
      List<Future<RelayResult>> runs = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        Relay relay = relay(transport).withExecutor(deliveryPool).withBatchSize(7).withMaxInFlight(8).build();
        runs.add(relays.submit(() -> relay.drain(10_000)));
      }
      int total = 0;
      for (Future<RelayResult> run : runs) {
        total += run.get(120, TimeUnit.SECONDS).delivered();
      }
      // A drain may stop while another relay still holds the last heads; finish what is left.
      total += relay(transport).withExecutor(deliveryPool).build().drain(10_000).delivered();
      assertThat(total).isEqualTo(keys * perKey);
    } finally {
      relays.shutdownNow();
      deliveryPool.shutdownNow();
    }

    assertThat(overlaps).as("keys with two deliveries in flight at once").isEmpty();
    assertThat(delivered).isEqualTo(written);
  }

  @Test
  public final void several_background_workers_drain_everything_in_per_key_order() {
    Map<String, List<String>> written = new HashMap<>();
    for (int i = 0; i < 20; i++) {
      for (int k = 0; k < 10; k++) {
        String key = "key-" + k;
        write(key, key + "#" + i);
        written.computeIfAbsent(key, x -> new ArrayList<>()).add(key + "#" + i);
      }
    }
    Map<String, List<String>> delivered = new ConcurrentHashMap<>();
    Relay relay = relay(InProcessTransport.consuming(m -> delivered
            .computeIfAbsent(m.orderingKey().orElseThrow(), x -> Collections.synchronizedList(new ArrayList<>()))
            .add(text(m))))
        .withWorkers(3)
        .withBatchSize(4)
        .build();
    try {
      relay.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> store.stats(clock.instant()).pending() == 0);
    } finally {
      relay.close();
    }
    assertThat(relay.isRunning()).isFalse();
    assertThat(delivered).isEqualTo(written);
  }

  @Test
  public final void close_never_marks_an_unconfirmed_delivery() {
    UUID stuck = write("A", "stuck");
    UUID fine = write("B", "fine");
    Transport transport = message -> message.id().equals(stuck)
        ? new CompletableFuture<>()
        : CompletableFuture.completedFuture(DeliveryOutcome.delivered());
    Relay relay = relay(transport)
        .withDeliveryTimeout(Duration.ofSeconds(20))
        .withLease(Duration.ofSeconds(30))
        .withShutdownGrace(Duration.ofMillis(300))
        .build();

    relay.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> store.find(fine).isEmpty());
    relay.close();

    assertThat(relay.isRunning()).isFalse();
    OutboxEntry entry = store.find(stuck).orElseThrow();
    assertThat(entry.status()).isEqualTo(EntryStatus.PENDING);
    assertThat(entry.attempts()).isZero();
    // Still claimed by the closed relay: nobody delivers it again until the lease expires.
    assertThat(store.claim(10, clock.instant(), Duration.ofSeconds(1))).isEmpty();
    assertThat(store.claim(10, clock.instant().plusSeconds(30), Duration.ofSeconds(1))).hasSize(1);
  }

  @Test
  public final void close_lets_a_delivery_in_flight_finish_within_the_grace_period() {
    UUID id = write(null, "slow");
    CompletableFuture<DeliveryOutcome> confirmation = new CompletableFuture<>();
    CompletableFuture<Void> sent = new CompletableFuture<>();
    Transport transport = message -> {
      sent.complete(null);
      return confirmation;
    };
    Relay relay = relay(transport).withShutdownGrace(Duration.ofSeconds(20)).build();
    relay.start();
    sent.orTimeout(30, TimeUnit.SECONDS).join();

    CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS)
        .execute(() -> confirmation.complete(DeliveryOutcome.delivered()));
    relay.close();

    assertThat(store.find(id)).isEmpty();
  }

  @Test
  public final void a_started_relay_delivers_new_entries_after_a_wake_up() {
    List<String> received = new CopyOnWriteArrayList<>();
    Relay relay = relay(InProcessTransport.consuming(m -> received.add(text(m))))
        .withPollInterval(Duration.ofSeconds(60), Duration.ofSeconds(60))
        .build();
    try {
      relay.start();
      write(null, "late");
      relay.wakeUp();

      await().atMost(Duration.ofSeconds(30)).until(() -> received.contains("late"));
    } finally {
      relay.close();
    }
  }
}
