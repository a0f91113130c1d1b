package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.BatchReport;
import dev.outbox4j.DestinationStatus;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayBuilder;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RelayResult;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.Sleeper;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.QuarantineQuery;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Assertions;
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

  /**
   * A second store instance over the same entries, as a second relay process would have (its own connections). The
   * default returns the current store, for stores that cannot share their entries between instances (in memory).
   *
   * @param clock the clock the store must use
   * @return a store over the entries of {@link #store()}, without clearing them
   */
  protected OutboxStore secondStore(Clock clock) {
    return store;
  }

  /** @return a sleeper that waits no real time: it moves the test's clock */
  private Sleeper movingTheClock(List<Duration> pauses) {
    return duration -> {
      pauses.add(duration);
      clock.advance(duration);
    };
  }

  private RelayBuilder relay(Transport transport) {
    return Relay.builder(store, transport).withClock(clock).withRandom(HALF);
  }

  private UUID write(String key, String payload) {
    return writeTo("orders", key, payload);
  }

  private UUID writeTo(String destination, String key, String payload) {
    return store.enqueue(Message.builder().withDestination(destination).withOrderingKey(key).withPayload(payload)
        .build()).id();
  }

  private static String text(Message message) {
    return new String(message.payload(), java.nio.charset.StandardCharsets.UTF_8);
  }

  /** The payload of the messages {@link #neighbour()} writes. */
  private static final String NEIGHBOUR = "neighbour";

  /**
   * Writes an unkeyed message to {@code orders} that the transports of the retry tests confirm: the destination is seen
   * taking another message in the same pass, so a failure of the message under test is that message's own (charged),
   * not a sign of an outage.
   */
  private void neighbour() {
    writeTo("orders", null, NEIGHBOUR);
  }

  /** @return the result of a flush with a {@link #neighbour()} written just before */
  private RelayResult flushBesideNeighbour(Relay relay) {
    neighbour();
    return relay.flush();
  }

  /** @return a transport that confirms {@link #neighbour()} messages and hands every other one to {@code handler} */
  private static InProcessTransport besideNeighbours(java.util.function.Function<Message, DeliveryOutcome> handler) {
    return InProcessTransport.of(m -> NEIGHBOUR.equals(text(m)) ? DeliveryOutcome.delivered() : handler.apply(m));
  }

  /** @return a stage confirmed at once for a {@link #neighbour()}, else {@code otherwise} */
  private static CompletableFuture<DeliveryOutcome> neighbourOr(Message message,
      CompletableFuture<DeliveryOutcome> otherwise) {
    return NEIGHBOUR.equals(text(message)) ? CompletableFuture.completedFuture(DeliveryOutcome.delivered()) : otherwise;
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
    Relay relay = relay(besideNeighbours(m -> calls.incrementAndGet() < 3
            ? DeliveryOutcome.retryable("503 unavailable")
            : DeliveryOutcome.delivered()))
        .withRetryPolicy(RetryPolicy.linear().withBase(Duration.ofSeconds(10)).withCap(Duration.ofSeconds(15))
            .withMaxAttempts(5).build())
        .build();
    Instant start = clock.instant();

    assertThat(flushBesideNeighbour(relay).failed()).isEqualTo(1);
    OutboxEntry afterFirst = store.find(id).orElseThrow();
    assertThat(afterFirst.attempts()).isEqualTo(1);
    assertThat(afterFirst.lastError()).isEqualTo("503 unavailable");
    assertThat(afterFirst.availableAt()).isEqualTo(start.plusSeconds(10));

    clock.advance(Duration.ofSeconds(9));
    assertThat(relay.flush()).isEqualTo(RelayResult.EMPTY);
    clock.advance(Duration.ofSeconds(1));
    assertThat(flushBesideNeighbour(relay).failed()).isEqualTo(1);
    assertThat(store.find(id).orElseThrow().availableAt()).isEqualTo(clock.instant().plusSeconds(15)); // capped

    clock.advance(Duration.ofSeconds(15));
    assertThat(relay.flush().delivered()).isEqualTo(1);
    assertThat(calls.get()).isEqualTo(3);
    assertThat(store.find(id)).isEmpty();
  }

  @Test
  public final void exponential_backoff_grows_by_the_multiplier_up_to_the_cap_with_full_jitter() {
    UUID id = write(null, "m");
    Relay relay = relay(besideNeighbours(m -> DeliveryOutcome.retryable("down")))
        .withRetryPolicy(RetryPolicy.exponential().withBase(Duration.ofSeconds(2)).withMultiplier(3)
            .withCap(Duration.ofSeconds(30)).withMaxAttempts(10).build())
        .build();
    // Jitter draws 0.5: delays are half of 2 s, 6 s, 18 s, then half of the 30 s cap.
    List<Duration> expected = List.of(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(9),
        Duration.ofSeconds(15), Duration.ofSeconds(15));

    List<Duration> observed = new ArrayList<>();
    for (int i = 0; i < expected.size(); i++) {
      Instant failedAt = clock.instant();
      assertThat(flushBesideNeighbour(relay).failed()).isEqualTo(1);
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
    Relay relay = relay(besideNeighbours(m -> m.id().equals(id)
            ? DeliveryOutcome.retryable("HTTP 500")
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
      total = total.plus(flushBesideNeighbour(relay));
      clock.advance(Duration.ofMinutes(1));
    }

    assertThat(total.failed()).isEqualTo(2);
    assertThat(total.quarantined()).isEqualTo(1);
    assertThat(total.delivered()).as("the neighbours only").isEqualTo(5);
    OutboxEntry entry = store.find(id).orElseThrow();
    assertThat(entry.status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(entry.attempts()).isEqualTo(3);
    assertThat(entry.quarantineReason()).contains("3 attempts").contains("HTTP 500");
    assertThat(quarantineReasons).singleElement().asString().contains("HTTP 500");
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
    Transport silent = message -> neighbourOr(message, new CompletableFuture<>());
    Relay relay = relay(silent).withDeliveryTimeout(Duration.ofMillis(200)).build();

    RelayResult result = flushBesideNeighbour(relay);

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
  public final void the_next_batch_is_claimed_while_a_full_batch_waits_for_its_answers_and_key_order_holds()
      throws Exception {
    Map<String, List<String>> written = new HashMap<>();
    for (int round = 0; round < 2; round++) {
      for (int k = 0; k < 4; k++) {
        write("key" + k, "key" + k + "#" + round);
        written.computeIfAbsent("key" + k, x -> new ArrayList<>()).add("key" + k + "#" + round);
      }
      write(null, "free" + round);
      write(null, "free" + (round + 2));
    }
    // Batches of 4: the first is the keys' heads, held unanswered; the next can only be the four unkeyed entries.
    CompletableFuture<DeliveryOutcome> firstAnswers = new CompletableFuture<>();
    List<String> arrivals = new CopyOnWriteArrayList<>();
    Transport transport = message -> {
      arrivals.add(text(message));
      return text(message).endsWith("#0") ? firstAnswers : CompletableFuture.completedFuture(DeliveryOutcome.delivered());
    };
    Relay relay = relay(transport).withBatchSize(4).build();
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try {
      Future<RelayResult> drained = runner.submit(() -> relay.drain(100));

      await().atMost(Duration.ofSeconds(30)).until(() -> store.stats(clock.instant()).inFlight() == 8);
      assertThat(arrivals).as("the batch claimed ahead waits for the answers of the one in flight")
          .containsExactlyInAnyOrder("key0#0", "key1#0", "key2#0", "key3#0");
      firstAnswers.complete(DeliveryOutcome.delivered());

      assertThat(drained.get(30, TimeUnit.SECONDS).delivered()).isEqualTo(12);
    } finally {
      runner.shutdownNow();
    }
    assertThat(arrivals.subList(4, 8)).as("the batch claimed ahead").containsExactlyInAnyOrder(
        "free0", "free1", "free2", "free3");
    for (Map.Entry<String, List<String>> key : written.entrySet()) {
      assertThat(arrivals.stream().filter(a -> a.startsWith(key.getKey() + "#")).toList())
          .containsExactlyElementsOf(key.getValue());
    }
    assertThat(store.stats(clock.instant()).pending()).isZero();
  }

  @Test
  public final void closing_hands_back_the_batch_claimed_ahead_at_once() {
    UUID stuck0 = write(null, "stuck0");
    UUID stuck1 = write(null, "stuck1");
    UUID next0 = write(null, "next0");
    UUID next1 = write(null, "next1");
    List<String> arrivals = new CopyOnWriteArrayList<>();
    Transport transport = message -> {
      arrivals.add(text(message));
      return new CompletableFuture<>();
    };
    Relay relay = relay(transport).withBatchSize(2)
        .withDeliveryTimeout(Duration.ofSeconds(20))
        .withLease(Duration.ofSeconds(30))
        .withShutdownGrace(Duration.ofMillis(300))
        .build();

    relay.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> store.stats(clock.instant()).inFlight() == 4);
    relay.close();

    assertThat(arrivals).containsExactlyInAnyOrder("stuck0", "stuck1");
    for (UUID id : List.of(next0, next1)) {
      OutboxEntry entry = store.find(id).orElseThrow();
      assertThat(entry.status()).isEqualTo(EntryStatus.PENDING);
      assertThat(entry.attempts()).isZero();
      assertThat(entry.lastError()).isNull();
    }
    assertThat(store.claim(10, clock.instant(), Duration.ofSeconds(1)).stream().map(Claim::id).toList())
        .as("the batch claimed ahead is claimable at once; the unconfirmed one waits for its lease")
        .containsExactly(next0, next1);
    assertThat(store.find(stuck0)).isPresent();
    assertThat(store.find(stuck1)).isPresent();
  }

  @Test
  public final void workers_of_a_relay_with_two_or_more_claim_no_batch_ahead() throws InterruptedException {
    for (int i = 0; i < 8; i++) {
      write(null, "m" + i);
    }
    List<String> arrivals = new CopyOnWriteArrayList<>();
    Transport transport = message -> {
      arrivals.add(text(message));
      return new CompletableFuture<>();
    };
    Relay relay = relay(transport).withBatchSize(2).withWorkers(2)
        .withDeliveryTimeout(Duration.ofSeconds(20))
        .withLease(Duration.ofSeconds(30))
        .withShutdownGrace(Duration.ofMillis(300))
        .build();
    try {
      relay.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> arrivals.size() == 4);
      Thread.sleep(500); // a claim ahead, had either worker made one, lands right after its sends

      assertThat(store.stats(clock.instant()).inFlight()).as("one batch per worker, none claimed ahead").isEqualTo(4);
    } finally {
      relay.close();
    }
    assertThat(arrivals).hasSize(4).doesNotHaveDuplicates();
  }

  @Test
  public final void a_destination_going_down_sends_nothing_of_the_batch_claimed_ahead() {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ids.add(write(null, "m" + i));
    }
    List<String> arrivals = new CopyOnWriteArrayList<>();
    Transport transport = message -> {
      arrivals.add(text(message));
      return CompletableFuture.supplyAsync(() -> DeliveryOutcome.unavailable("connection refused"),
          CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS));
    };
    Relay relay = relay(transport).withBatchSize(2)
        .withOutageBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30))
        .build();

    RelayResult result = relay.drain(2);

    assertThat(arrivals).as("only the first batch was sent; the one claimed ahead found its destination paused")
        .containsExactlyInAnyOrder("m0", "m1");
    assertThat(result.attempted()).isEqualTo(2);
    assertThat(result.postponed()).isEqualTo(4);
    assertThat(result.failed() + result.quarantined()).isZero();
    assertThat(store.stats(clock.instant()).inFlight()).as("nothing stays claimed").isZero();
    for (UUID id : ids) {
      assertThat(store.find(id).orElseThrow().attempts()).isZero();
    }
  }

  @Test
  public final void a_batch_claimed_ahead_that_waited_half_its_lease_is_claimed_afresh_before_it_is_sent() {
    Duration lease = Duration.ofSeconds(30);
    write(null, "first0");
    write(null, "first1");
    write(null, "late0");
    write(null, "late1");
    CompletableFuture<DeliveryOutcome> firstAnswers = new CompletableFuture<>();
    List<Integer> claimableElsewhereWhenSent = new CopyOnWriteArrayList<>();
    AtomicReference<Instant> staleLeaseEnd = new AtomicReference<>();
    Transport transport = message -> {
      if (text(message).startsWith("first")) {
        if (staleLeaseEnd.compareAndSet(null, clock.instant().plus(lease))) {
          // The claim ahead runs right after this batch is sent, at this instant; then the answers take 0.6 lease.
          CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(() -> {
            clock.advance(lease.multipliedBy(6).dividedBy(10));
            firstAnswers.complete(DeliveryOutcome.delivered());
          });
        }
        return firstAnswers;
      }
      // Sent under a lease that runs past the one claimed ahead: a claim just after that one's end takes nothing.
      claimableElsewhereWhenSent.add(store.claim(10, staleLeaseEnd.get().plusSeconds(1), lease).size());
      return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
    };
    Relay relay = relay(transport).withBatchSize(2).withLease(lease).withDeliveryTimeout(Duration.ofSeconds(20))
        .build();

    assertThat(relay.drain(10).delivered()).isEqualTo(4);

    assertThat(claimableElsewhereWhenSent).containsExactly(0, 0);
  }

  @Test
  public final void a_batch_claimed_ahead_past_its_send_cutoff_is_handed_back_at_once_and_claimed_afresh() {
    // The transport may take up to 0.8 of the lease: a send must start in the lease's first fifth to land inside it.
    Duration lease = Duration.ofSeconds(2);
    Duration bound = Duration.ofMillis(1600);
    write(null, "first0");
    write(null, "first1");
    write(null, "late0");
    write(null, "late1");
    List<String> sent = new CopyOnWriteArrayList<>();
    Transport transport = new Transport() {
      @Override
      public java.util.concurrent.CompletionStage<DeliveryOutcome> deliver(Message message) {
        sent.add(text(message));
        if (text(message).startsWith("first")) {
          // Answers after the batch claimed ahead meanwhile passed its send cutoff, well inside half its lease.
          return CompletableFuture.supplyAsync(DeliveryOutcome::delivered,
              CompletableFuture.delayedExecutor(600, TimeUnit.MILLISECONDS));
        }
        return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
      }

      @Override
      public Duration maxAnswerTime() {
        return bound;
      }
    };
    Relay relay = relay(transport).withBatchSize(2).withLease(lease).withDeliveryTimeout(Duration.ofMillis(1800))
        .build();

    RelayResult result = relay.drain(10);

    assertThat(result.delivered()).as("the stale batch is not left to wait out its lease").isEqualTo(4);
    assertThat(sent).containsExactlyInAnyOrder("first0", "first1", "late0", "late1");
  }

  // ------------------------------------------------------------------------------------------ dispatch executor

  @Test
  public final void with_a_dispatch_executor_no_send_starts_after_its_cutoff_and_the_unsent_are_handed_back_uncharged()
      throws Exception {
    // Lease 3 s, answers within 1.5 s: a send must start within 1.5 s of the claim. The first send blocks the only
    // thread for 1.9 s, so the two queued behind it reach the thread after their cutoff.
    write("A", "slow");
    UUID second = write("B", "queued1");
    UUID third = write("C", "queued2");
    List<String> sent = new CopyOnWriteArrayList<>();
    Transport blocking = blockingFor(sent, "slow", Duration.ofMillis(1900), Duration.ofMillis(1500));
    ExecutorService oneThread = Executors.newSingleThreadExecutor();
    try {
      Relay relay = relay(blocking).withExecutor(oneThread).withLease(Duration.ofSeconds(3))
          .withDeliveryTimeout(Duration.ofMillis(2500)).build();

      RelayResult result = relay.flush();
      oneThread.submit(() -> { }).get(10, TimeUnit.SECONDS); // everything queued has run

      assertThat(sent).as("no send starts after its cutoff").containsExactly("slow");
      assertThat(result.delivered()).isEqualTo(1);
      assertThat(result.attempted()).isEqualTo(1);
      assertHandedBackUncharged(second, third);
    } finally {
      oneThread.shutdownNow();
    }
  }

  @Test
  public final void a_delivery_whose_deadline_comes_while_it_waits_for_the_executor_is_never_sent_nor_charged()
      throws Exception {
    write("A", "slow");
    UUID second = write("B", "queued1");
    UUID third = write("C", "queued2");
    List<String> sent = new CopyOnWriteArrayList<>();
    Transport blocking = blockingFor(sent, "slow", Duration.ofMillis(1200), Duration.ofMillis(300));
    ExecutorService oneThread = Executors.newSingleThreadExecutor();
    try {
      Relay relay = relay(blocking).withExecutor(oneThread).withLease(Duration.ofSeconds(3))
          .withDeliveryTimeout(Duration.ofMillis(500)).build();

      RelayResult result = relay.flush();
      oneThread.submit(() -> { }).get(10, TimeUnit.SECONDS);

      assertThat(sent).as("the relay gave up on the queued deliveries before they started").containsExactly("slow");
      assertThat(result.attempted()).isEqualTo(1);
      assertHandedBackUncharged(second, third);
    } finally {
      oneThread.shutdownNow();
    }
  }

  @Test
  public final void the_executor_queue_holds_at_most_max_in_flight_deliveries_while_a_send_stalls() throws Exception {
    for (int i = 0; i < 10; i++) {
      write(null, "m" + i);
    }
    java.util.concurrent.CountDownLatch brokerBack = new java.util.concurrent.CountDownLatch(1);
    Transport stalled = message -> {
      try {
        brokerBack.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
    };
    java.util.concurrent.ThreadPoolExecutor oneThread = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0,
        TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>());
    try {
      Relay relay = relay(stalled).withExecutor(oneThread).withMaxInFlight(2).withBatchSize(10)
          .withLease(Duration.ofMillis(1500)).withDeliveryTimeout(Duration.ofMillis(300)).build();

      relay.flush();

      assertThat(oneThread.getQueue().size()).isLessThanOrEqualTo(2);
    } finally {
      brokerBack.countDown();
      oneThread.shutdownNow();
    }
  }

  /** A transport that records each send; the one with {@code slowPayload} blocks its thread for {@code blocks}. */
  private static Transport blockingFor(List<String> sent, String slowPayload, Duration blocks, Duration bound) {
    return new Transport() {
      @Override
      public java.util.concurrent.CompletionStage<DeliveryOutcome> deliver(Message message) {
        sent.add(text(message));
        if (text(message).equals(slowPayload)) {
          try {
            new java.util.concurrent.CountDownLatch(1).await(blocks.toMillis(), TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
      }

      @Override
      public Duration maxAnswerTime() {
        return bound;
      }
    };
  }

  /** Asserts the entries were handed back: pending, no attempt charged, claimable at once. */
  private void assertHandedBackUncharged(UUID... ids) {
    for (UUID id : ids) {
      OutboxEntry entry = store.find(id).orElseThrow();
      assertThat(entry.status()).as("status of %s", id).isEqualTo(EntryStatus.PENDING);
      assertThat(entry.attempts()).as("attempts of %s", id).isZero();
    }
    assertThat(store.claim(10, clock.instant(), Duration.ofSeconds(30))).extracting(Claim::id)
        .containsExactlyInAnyOrder(ids);
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

  // ------------------------------------------------------------------------------------------ outages (issue 10 §1)

  /** Per-key arrivals of a receiver, checked for a message arriving after a later message of its key. */
  private static void assertNoLaterMessageWasOvertaken(List<String> arrivals) {
    Map<String, Integer> highest = new HashMap<>();
    for (String arrival : arrivals) {
      String key = arrival.substring(0, arrival.indexOf('#'));
      int index = Integer.parseInt(arrival.substring(arrival.indexOf('#') + 1));
      Integer seen = highest.get(key);
      assertThat(seen == null || index >= seen)
          .as("%s arrived after a later message of its key, in %s", arrival, arrivals)
          .isTrue();
      highest.merge(key, index, Math::max);
    }
  }

  private List<OutboxEntry> quarantinedEntries() {
    return store.quarantined(QuarantineQuery.first(QuarantineQuery.MAX_LIMIT));
  }

  @Test
  public final void an_outage_longer_than_the_retry_budget_quarantines_nothing_and_keeps_per_key_order() {
    Map<String, List<String>> written = new HashMap<>();
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      for (int k = 0; k < 4; k++) {
        ids.add(write("key" + k, "key" + k + "#" + i));
        written.computeIfAbsent("key" + k, x -> new ArrayList<>()).add("key" + k + "#" + i);
      }
      ids.add(write(null, "free" + i + "#0"));
    }
    AtomicBoolean down = new AtomicBoolean(true);
    List<String> arrivals = new CopyOnWriteArrayList<>();
    Transport transport = InProcessTransport.of(m -> {
      if (down.get()) {
        return DeliveryOutcome.retryable("connection refused");
      }
      arrivals.add(text(m));
      return DeliveryOutcome.delivered();
    });
    List<Duration> pauses = new CopyOnWriteArrayList<>();
    Relay relay = relay(transport)
        .withRetryPolicy(RetryPolicy.exponential().withBase(Duration.ofSeconds(1)).withCap(Duration.ofSeconds(10))
            .withMaxAttempts(3).withGiveUpAfter(Duration.ofMinutes(1)).build())
        .withOutageBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30))
        .withSleeper(movingTheClock(pauses))
        .build();

    // The broker stays away for two hours: 120 times the time budget, hundreds of times the attempt budget.
    Instant back = clock.instant().plus(Duration.ofHours(2));
    int attemptsSeen = 0;
    while (clock.instant().isBefore(back)) {
      RelayResult result = relay.drain(20);
      attemptsSeen += result.attempted();
      assertThat(result.failed() + result.quarantined()).as("charged during the outage").isZero();
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(attemptsSeen).as("deliveries tried during the outage").isGreaterThan(100);
    assertThat(quarantinedEntries()).isEmpty();
    for (UUID id : ids) {
      assertThat(store.find(id).orElseThrow().attempts()).isZero();
    }
    assertThat(pauses).isNotEmpty().allSatisfy(p -> assertThat(p).isLessThanOrEqualTo(Duration.ofSeconds(30)));

    down.set(false);
    for (int i = 0; i < 20 && store.stats(clock.instant()).pending() > 0; i++) {
      relay.drain(100);
      clock.advance(Duration.ofSeconds(30));
    }

    assertThat(store.stats(clock.instant()).pending()).isZero();
    assertThat(quarantinedEntries()).isEmpty();
    for (Map.Entry<String, List<String>> key : written.entrySet()) {
      assertThat(arrivals.stream().filter(a -> a.startsWith(key.getKey() + "#")).toList())
          .containsExactlyElementsOf(key.getValue());
    }
    assertThat(arrivals).hasSize(ids.size());
  }

  @Test
  public final void a_destination_paused_by_an_operator_is_held_back_uncharged_with_no_probe_while_others_flow_until_resumed() {
    List<UUID> webhooks = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      webhooks.add(writeTo("webhooks", null, "w" + i));
      writeTo("orders", null, "o" + i);
    }
    List<OutboxEntry> before = webhooks.stream().map(id -> store.find(id).orElseThrow()).toList();
    List<String> received = new CopyOnWriteArrayList<>();
    Relay relay = relay(InProcessTransport.consuming(m -> received.add(m.destination() + ":" + text(m)))).build();
    store.pauseDestination("webhooks", "alice", "endpoint migrating", clock.instant());

    // The paused destination's entries are not even claimed: they wait, untouched (uncharged, nothing written).
    assertThat(relay.flush()).isEqualTo(new RelayResult(3, 3, 3, 0, 0, 0, 0));
    assertThat(received).containsExactlyInAnyOrder("orders:o0", "orders:o1", "orders:o2");
    assertThat(webhooks.stream().map(id -> store.find(id).orElseThrow()).toList()).isEqualTo(before);
    assertThat(relay.pausedDestinations()).singleElement().satisfies(paused -> {
      assertThat(paused.destination()).isEqualTo("webhooks");
      assertThat(paused.cause()).isEqualTo(DestinationStatus.Cause.OPERATOR);
      assertThat(paused.nextProbeAt()).isNull();
      assertThat(paused.lastError()).isEqualTo("paused by alice: endpoint migrating");
    });

    clock.advance(Duration.ofMinutes(10)); // however long it lasts: no probe
    writeTo("orders", null, "o3");
    assertThat(relay.drain(10).delivered()).isEqualTo(1);
    assertThat(received).hasSize(4).allSatisfy(r -> assertThat(r).startsWith("orders:"));
    assertThat(store.find(webhooks.get(0)).orElseThrow().attempts()).isZero();

    assertThat(store.resumeDestination("webhooks")).isTrue();
    clock.advance(Duration.ofSeconds(5)); // the relay reads the pauses again, and the held-back entries come back
    assertThat(relay.drain(10).delivered()).isEqualTo(3);
    assertThat(received).contains("webhooks:w0", "webhooks:w1", "webhooks:w2");
    assertThat(relay.pausedDestinations()).isEmpty();
  }

  @Test
  public final void a_paused_destination_s_waiting_backlog_leaves_the_other_destinations_claims_whole() {
    for (int i = 0; i < 120; i++) {
      writeTo("webhooks", i % 10 == 0 ? "hook" + i : null, "w" + i); // unkeyed, and a few keys' heads
    }
    Set<String> probed = ConcurrentHashMap.newKeySet();
    Relay relay = relay(InProcessTransport.of(m -> {
      if (m.destination().equals("webhooks")) {
        probed.add(text(m));
        return DeliveryOutcome.unavailable("connection refused");
      }
      return DeliveryOutcome.delivered();
    })).withBatchSize(10).withOutageBackoff(Duration.ofSeconds(30), Duration.ofMinutes(5)).build();
    assertThat(relay.flush().attempted()).isEqualTo(10); // the webhooks' first batch: down, paused
    assertThat(relay.pausedDestinations()).extracting(DestinationStatus::destination).containsExactly("webhooks");

    // Written after the backlog: a full batch of others per pass, none of the paused destination's entries.
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 10; i++) {
        writeTo(i % 2 == 0 ? "orders" : "audit", i == 3 ? "order" + round : null, "o" + round + "." + i);
      }
      assertThat(relay.flush()).as("pass " + round).isEqualTo(new RelayResult(10, 10, 10, 0, 0, 0, 0));
    }
    assertThat(probed).hasSize(10);

    // Its probe is still sent when due, from the entries that waited.
    clock.advance(Duration.ofSeconds(30));
    relay.flush();
    assertThat(probed).hasSizeGreaterThan(10);
  }

  @Test
  public final void a_pause_from_another_process_takes_effect_when_the_relay_next_reads_the_pauses_within_a_second() {
    List<String> received = new CopyOnWriteArrayList<>();
    Relay relay = relay(InProcessTransport.consuming(m -> received.add(text(m)))).build();
    writeTo("webhooks", null, "before");
    relay.flush();

    secondStore(clock).pauseDestination("webhooks", "cli", "", clock.instant());
    clock.advance(Duration.ofSeconds(1));
    writeTo("webhooks", null, "after");
    RelayResult result = relay.flush();

    assertThat(result.claimed()).isZero(); // left out of the claim: it waits, untouched
    assertThat(received).containsExactly("before");
    assertThat(relay.pausedDestinations()).extracting(DestinationStatus::destination).containsExactly("webhooks");
    assertThat(relay.pausedDestinations().get(0).lastError()).isEqualTo("paused by cli");
  }

  @Test
  public final void a_transport_that_says_it_is_unavailable_charges_no_attempt_even_for_a_single_entry() {
    UUID id = write("A", "A#0");
    List<Instant> postponedUntil = new CopyOnWriteArrayList<>();
    Relay relay = relay(InProcessTransport.of(m -> DeliveryOutcome.unavailable("broker blocked: disk alarm")))
        .withOutageBackoff(Duration.ofSeconds(2), Duration.ofSeconds(60))
        .onEvent(new RelayListener() {
          @Override
          public void onPostponed(OutboxEntry entry, String reason, Instant nextAttemptAt) {
            postponedUntil.add(nextAttemptAt);
          }
        })
        .build();

    RelayResult result = relay.flush();

    assertThat(result).isEqualTo(new RelayResult(1, 1, 0, 0, 1, 0, 0));
    OutboxEntry entry = store.find(id).orElseThrow();
    assertThat(entry.attempts()).isZero();
    assertThat(entry.status()).isEqualTo(EntryStatus.PENDING);
    assertThat(entry.lastError()).isEqualTo("broker blocked: disk alarm");
    // Paused at once; its first probe is due after 3/4 of the 2 s base (equal jitter), and the entry comes back one
    // cap (60 s) after that, with whatever else of the destination is held back.
    assertThat(postponedUntil).containsExactly(clock.instant().plusMillis(1500).plusSeconds(60));
    assertThat(entry.availableAt()).isEqualTo(clock.instant().plusMillis(1500).plusSeconds(60));
    assertThat(relay.pausedDestinations()).singleElement().satisfies(paused -> {
      assertThat(paused.destination()).isEqualTo("orders");
      assertThat(paused.lastError()).isEqualTo("broker blocked: disk alarm");
      assertThat(paused.nextProbeAt()).isEqualTo(clock.instant().plusMillis(1500));
    });
  }

  @Test
  public final void a_paused_destination_says_when_its_entries_are_next_sent_never_a_time_already_past() {
    write("A", "A#0");
    AtomicBoolean up = new AtomicBoolean(false);
    AtomicReference<Relay> self = new AtomicReference<>();
    List<DestinationStatus> duringProbe = new CopyOnWriteArrayList<>();
    Relay relay = relay(InProcessTransport.of(m -> {
      if (!up.get()) {
        return DeliveryOutcome.unavailable("connection refused");
      }
      duringProbe.addAll(self.get().pausedDestinations());
      return DeliveryOutcome.delivered();
    })).withOutageBackoff(Duration.ofSeconds(2), Duration.ofSeconds(60)).build();
    self.set(relay);
    Instant start = clock.instant();

    relay.flush();
    // paused; the probe is due in 1.5 s, the failed entry comes back one cap (60 s) after that
    assertThat(relay.pausedDestinations()).singleElement().satisfies(paused -> {
      assertThat(paused.probing()).isFalse();
      assertThat(paused.nextSendAt()).isEqualTo(start.plusMillis(1500));
    });

    // The receiver recovers and the probe falls due, but the only entry is held back: nothing can be sent until it
    // comes back, and the status says so rather than a probe time already past.
    up.set(true);
    clock.advance(Duration.ofSeconds(2));
    assertThat(relay.flush().claimed()).isZero();
    assertThat(relay.pausedDestinations()).singleElement().satisfies(paused -> {
      assertThat(paused.probing()).isFalse();
      assertThat(paused.nextSendAt()).isEqualTo(start.plusMillis(61_500)).isAfter(clock.instant());
    });

    // Written now, an entry goes at the next pass: with nothing held back it would say "with the next entry" (null)
    clock.advance(Duration.ofSeconds(60));
    relay.flush();
    assertThat(duringProbe).as("read while the probe awaited its answer").singleElement().satisfies(paused -> {
      assertThat(paused.probing()).isTrue();
      assertThat(paused.nextSendAt()).isNull();
    });
    assertThat(relay.pausedDestinations()).as("resumed by the probe's confirmation").isEmpty();
  }

  @Test
  public final void different_entries_failing_in_a_row_with_nothing_confirmed_are_an_outage_charged_to_nobody() {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      ids.add(write(null, "m" + i));
    }
    Relay relay = relay(InProcessTransport.of(m -> DeliveryOutcome.retryable("timeout")))
        .withBatchSize(1)
        .build();

    List<Integer> pausedAfter = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      RelayResult result = relay.flush();
      assertThat(result.failed()).as("pass " + i + ": nothing is charged").isZero();
      pausedAfter.add(relay.pausedDestinations().size());
    }

    // A trickle of single failures with nothing confirmed is undecided until twenty different entries have failed.
    assertThat(pausedAfter.subList(0, 19)).containsOnly(0);
    assertThat(pausedAfter.subList(19, 25)).containsOnly(1);
    for (UUID id : ids) {
      assertThat(store.find(id).orElseThrow().attempts()).isZero();
    }
  }

  @Test
  public final void a_paused_destination_is_probed_with_a_few_different_entries_and_its_pauses_grow_to_their_cap() {
    for (int i = 0; i < 40; i++) {
      write(null, "m" + i);
    }
    List<Integer> sentPerPass = new CopyOnWriteArrayList<>();
    List<Duration> gapsToNextProbe = new CopyOnWriteArrayList<>();
    Set<String> probed = ConcurrentHashMap.newKeySet();
    AtomicInteger sends = new AtomicInteger();
    AtomicReference<Relay> self = new AtomicReference<>();
    Relay relay = relay(InProcessTransport.of(m -> {
      if (sends.incrementAndGet() > 20) {
        probed.add(text(m));
      }
      return DeliveryOutcome.retryable("connection reset");
    }))
        .withBatchSize(20)
        .withOutageBackoff(Duration.ofSeconds(1), Duration.ofSeconds(4))
        .withSleeper(movingTheClock(new CopyOnWriteArrayList<>()))
        .onEvent(new RelayListener() {
          @Override
          public void onBatch(BatchReport report) {
            sentPerPass.add(report.result().attempted());
            if (report.result().attempted() > 0) {
              self.get().pausedDestinations().forEach(
                  paused -> gapsToNextProbe.add(Duration.between(clock.instant(), paused.nextProbeAt())));
            }
          }
        })
        .build();
    self.set(relay);

    RelayResult total = RelayResult.EMPTY;
    for (int i = 0; i < 120; i++) {
      total = total.plus(relay.drain(5));
      clock.advance(Duration.ofMillis(500));
    }

    // The first pass sends a full batch and finds the outage; from then on no pass sends more than a probe of 5.
    // Failed probes wait as long as the held-back entries, so successive probes reach different entries. The pause
    // before each next probe grows 1, 2, 4, 4 s (capped), each drawn at 3/4 by equal jitter.
    assertThat(sentPerPass.get(0)).isEqualTo(20);
    assertThat(sentPerPass.subList(1, sentPerPass.size())).allSatisfy(sent -> assertThat(sent).isLessThanOrEqualTo(5));
    assertThat(probed).as("different entries probed").hasSizeGreaterThan(10);
    assertThat(gapsToNextProbe).startsWith(Duration.ofMillis(750), Duration.ofMillis(1500), Duration.ofSeconds(3),
        Duration.ofSeconds(3));
    assertThat(gapsToNextProbe).allSatisfy(gap -> assertThat(gap).isLessThanOrEqualTo(Duration.ofSeconds(3)));
    assertThat(total.failed() + total.quarantined()).isZero();
    assertThat(quarantinedEntries()).isEmpty();
    assertThat(sends.get()).isEqualTo(total.attempted());
  }

  @Test
  public final void the_background_worker_rides_out_an_outage_and_delivers_afterwards() {
    Map<String, List<String>> written = new HashMap<>();
    for (int i = 0; i < 5; i++) {
      for (int k = 0; k < 3; k++) {
        write("key" + k, "key" + k + "#" + i);
        written.computeIfAbsent("key" + k, x -> new ArrayList<>()).add("key" + k + "#" + i);
      }
    }
    AtomicInteger refusals = new AtomicInteger(60);
    Map<String, List<String>> delivered = new ConcurrentHashMap<>();
    Transport transport = InProcessTransport.of(m -> {
      if (refusals.getAndDecrement() > 0) {
        return DeliveryOutcome.retryable("no route to host");
      }
      delivered.computeIfAbsent(m.orderingKey().orElseThrow(), x -> new CopyOnWriteArrayList<>()).add(text(m));
      return DeliveryOutcome.delivered();
    });
    OutageWatch watch = new OutageWatch();
    Relay relay = relay(transport)
        .withRetryPolicy(RetryPolicy.linear().withBase(Duration.ofSeconds(1)).withMaxAttempts(2).build())
        .withOutageBackoff(Duration.ofMillis(500), Duration.ofSeconds(2))
        .onEvent(watch)
        .withPollInterval(Duration.ofMillis(1), Duration.ofMillis(5))
        .build();
    try {
      relay.start();
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10)).until(() -> {
        clock.advance(Duration.ofSeconds(1)); // the idle poll uses real time; entries postponed on the clock come back
        return store.stats(clock.instant()).pending() == 0;
      });
    } finally {
      relay.close();
    }

    assertThat(watch.postponed()).as("the outage was recognised and charged to nobody").isPositive();
    assertThat(quarantinedEntries()).isEmpty();
    assertThat(delivered).isEqualTo(written);
  }

  // ------------------------------------------------------------------------------- fault isolation (issue 21)

  @Test
  public final void a_destination_whose_deliveries_all_fail_is_paused_alone_while_every_other_destination_flows() {
    List<UUID> erp = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      for (int k = 0; k < 6; k++) {
        erp.add(writeTo("erp", "e" + k, "e" + k + "#" + i));
      }
      erp.add(writeTo("erp", null, "free#" + i));
    }
    Map<String, List<String>> written = new HashMap<>();
    for (int i = 0; i < 5; i++) {
      for (int k = 0; k < 4; k++) {
        writeTo("orders", "o" + k, "o" + k + "#" + i);
        written.computeIfAbsent("o" + k, x -> new ArrayList<>()).add("o" + k + "#" + i);
      }
    }
    AtomicInteger erpSends = new AtomicInteger();
    List<Integer> erpSendsPerPass = new CopyOnWriteArrayList<>();
    List<String> arrivals = new CopyOnWriteArrayList<>();
    Relay relay = relay(InProcessTransport.of(m -> {
      if (m.destination().equals("erp")) {
        erpSends.incrementAndGet();
        return DeliveryOutcome.retryable("HTTP 503 from https://erp.example/hook");
      }
      arrivals.add(text(m));
      return DeliveryOutcome.delivered();
    }))
        .withBatchSize(10)
        .withOutageBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30))
        .withSleeper(movingTheClock(new CopyOnWriteArrayList<>()))
        .onEvent(new RelayListener() {
          private int seen;
          private boolean paused;
          private boolean pausedBefore;

          @Override
          public void onDestinationPaused(DestinationStatus status) {
            paused = true;
          }

          @Override
          public void onBatch(BatchReport report) {
            if (pausedBefore) {
              erpSendsPerPass.add(erpSends.get() - seen);
            }
            seen = erpSends.get();
            pausedBefore = paused;
          }
        })
        .build();

    // Eleven entries of erp can be tried at a time: it is judged down once it has confirmed nothing for the window (the
    // outage cap) while failing; until then its failures are undecided, charged to nobody.
    for (int round = 0; round < 60 && (arrivals.size() < 20 || relay.pausedDestinations().isEmpty()); round++) {
      relay.drain(50);
      clock.advance(Duration.ofSeconds(1));
    }

    for (Map.Entry<String, List<String>> key : written.entrySet()) {
      assertThat(arrivals.stream().filter(a -> a.startsWith(key.getKey() + "#")).toList())
          .as("every entry of the flowing destination, in key order").containsExactlyElementsOf(key.getValue());
    }
    assertThat(erpSendsPerPass).as("after the pass that found the outage, probes")
        .allSatisfy(sent -> assertThat(sent).isLessThanOrEqualTo(5));
    for (UUID id : erp) {
      OutboxEntry entry = store.find(id).orElseThrow();
      assertThat(entry.attempts()).as("an outage is charged to nobody").isZero();
      assertThat(entry.status()).isEqualTo(EntryStatus.PENDING);
    }
    assertThat(quarantinedEntries()).isEmpty();
    assertThat(relay.pausedDestinations()).singleElement().satisfies(paused -> {
      assertThat(paused.destination()).isEqualTo("erp");
      assertThat(paused.lastError()).isEqualTo("HTTP 503 from https://erp.example/hook");
    });
  }

  @Test
  public final void entries_held_back_in_the_pass_of_a_probe_come_back_within_the_pause_cap_not_a_lease_later() {
    List<UUID> erp = new ArrayList<>();
    for (int k = 0; k < 24; k++) {
      erp.add(writeTo("erp", "k" + k, "k" + k + "#0"));
    }
    java.util.concurrent.atomic.AtomicBoolean refusing = new java.util.concurrent.atomic.AtomicBoolean(true);
    List<String> arrivals = new CopyOnWriteArrayList<>();
    Relay relay = relay(InProcessTransport.of(m -> {
      if (refusing.get()) {
        return DeliveryOutcome.retryable("HTTP 503");
      }
      arrivals.add(text(m));
      return DeliveryOutcome.delivered();
    }))
        .withOutageBackoff(Duration.ofSeconds(1), Duration.ofSeconds(4))
        .withLease(Duration.ofMinutes(10))
        .build();

    relay.flush(); // all 24 fail: the destination is paused, its entries postponed one cap past its first probe
    clock.advance(Duration.ofSeconds(5)); // first probe (<= 1 s) + cap (4 s)
    refusing.set(false);
    relay.flush(); // the probe: 5 sent and confirmed (resumed), the other 19 held back
    assertThat(arrivals).hasSize(5);
    assertThat(relay.pausedDestinations()).isEmpty();

    // Held back "past its next probe by the pause's cap": the probe was due, so within 4 s they are claimable again.
    // Two caps later they must be back; a lease (10 min here, 30 s by default) must not be what they wait for.
    clock.advance(Duration.ofSeconds(8));
    relay.drain(5);

    assertThat(arrivals).as("every entry of the resumed destination, a few seconds after it recovered").hasSize(24);
    assertThat(store.stats(clock.instant()).pending()).isZero();
  }

  @Test
  public final void a_paused_destination_resumes_at_its_first_confirmation_and_delivers_everything_in_key_order() {
    Map<String, List<String>> written = new HashMap<>();
    for (int i = 0; i < 6; i++) {
      for (int k = 0; k < 3; k++) {
        writeTo("erp", "k" + k, "k" + k + "#" + i);
        written.computeIfAbsent("k" + k, x -> new ArrayList<>()).add("k" + k + "#" + i);
      }
      writeTo("orders", null, "orders#" + i);
    }
    AtomicInteger refusals = new AtomicInteger(20);
    Map<String, List<String>> delivered = new ConcurrentHashMap<>();
    List<String> paused = new CopyOnWriteArrayList<>();
    List<String> resumed = new CopyOnWriteArrayList<>();
    Relay relay = relay(InProcessTransport.of(m -> {
      if (m.destination().equals("erp") && refusals.getAndDecrement() > 0) {
        return DeliveryOutcome.retryable("HTTP 503");
      }
      delivered.computeIfAbsent(m.orderingKey().orElse("orders"), x -> new CopyOnWriteArrayList<>()).add(text(m));
      return DeliveryOutcome.delivered();
    }))
        .withOutageBackoff(Duration.ofSeconds(1), Duration.ofSeconds(8))
        .withSleeper(movingTheClock(new CopyOnWriteArrayList<>()))
        .onEvent(new RelayListener() {
          @Override
          public void onDestinationPaused(dev.outbox4j.DestinationStatus status) {
            paused.add(status.destination());
          }

          @Override
          public void onDestinationResumed(String destination, Duration pausedFor) {
            resumed.add(destination);
          }
        })
        .build();

    for (int round = 0; round < 100 && store.stats(clock.instant()).pending() > 0; round++) {
      relay.drain(20);
      clock.advance(Duration.ofSeconds(2));
    }

    assertThat(store.stats(clock.instant()).pending()).isZero();
    assertThat(paused).as("one pause event per pause, not per probe").containsExactly("erp");
    assertThat(resumed).containsExactly("erp");
    assertThat(relay.pausedDestinations()).isEmpty();
    assertThat(quarantinedEntries()).isEmpty();
    for (Map.Entry<String, List<String>> key : written.entrySet()) {
      assertThat(delivered.get(key.getKey())).containsExactlyElementsOf(key.getValue());
    }
    assertThat(delivered.get("orders")).hasSize(6);
  }

  @Test
  public final void a_failure_the_transport_flags_as_unavailable_pauses_only_the_destination_it_failed() {
    UUID down = writeTo("stream-a", "A", "a#0");
    UUID up = writeTo("stream-b", "B", "b#0");
    Relay relay = relay(InProcessTransport.of(m -> m.destination().equals("stream-a")
        ? DeliveryOutcome.unavailable("no responders for subject stream-a")
        : DeliveryOutcome.delivered())).build();

    RelayResult result = relay.flush();

    assertThat(result.delivered()).isEqualTo(1);
    assertThat(result.postponed()).isEqualTo(1);
    assertThat(store.find(up)).isEmpty();
    assertThat(store.find(down).orElseThrow().attempts()).isZero();
    assertThat(relay.pausedDestinations()).extracting(dev.outbox4j.DestinationStatus::destination)
        .containsExactly("stream-a");
  }

  @Test
  public final void the_background_worker_delivers_a_new_destination_while_an_older_backlog_of_another_is_paused()
      throws InterruptedException {
    for (int i = 0; i < 150; i++) {
      writeTo("erp", i % 10 == 0 ? null : "erp-" + (i % 7), "erp#" + i);
    }
    List<String> arrivals = new CopyOnWriteArrayList<>();
    AtomicInteger erpSends = new AtomicInteger();
    Relay relay = relay(InProcessTransport.of(m -> {
      if (m.destination().equals("erp")) {
        erpSends.incrementAndGet();
        return DeliveryOutcome.retryable("HTTP 503");
      }
      arrivals.add(text(m));
      return DeliveryOutcome.delivered();
    }))
        .withBatchSize(20)
        .withPollInterval(Duration.ofMillis(5), Duration.ofMillis(50))
        .build();
    try {
      relay.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> !relay.pausedDestinations().isEmpty());
      for (int i = 0; i < 20; i++) {
        writeTo("orders", "o" + (i % 4), "orders#" + i);
      }
      relay.wakeUp();
      await().atMost(Duration.ofSeconds(30)).until(() -> arrivals.size() == 20);
    } finally {
      relay.close();
    }
    assertThat(quarantinedEntries()).isEmpty();
    assertThat(erpSends.get()).as("the paused destination was not retried on every pass").isLessThan(60);
  }

  @Test
  public final void a_message_failing_on_its_own_is_quarantined_once_its_time_budget_is_spent() {
    UUID poison = write("A", "poison");
    UUID next = write("A", "next");
    Relay relay = relay(InProcessTransport.of(m -> m.id().equals(poison)
            ? DeliveryOutcome.retryable("422 from the schema registry, retry later")
            : DeliveryOutcome.delivered()))
        .withRetryPolicy(RetryPolicy.linear().withBase(Duration.ofMinutes(1)).withCap(Duration.ofMinutes(1))
            .withGiveUpAfter(Duration.ofMinutes(10)).build())
        .build();

    int passes = 0;
    while (store.find(poison).orElseThrow().status() != EntryStatus.QUARANTINED && passes++ < 100) {
      flushBesideNeighbour(relay);
      clock.advance(Duration.ofMinutes(1));
    }

    OutboxEntry entry = store.find(poison).orElseThrow();
    assertThat(entry.status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(entry.attempts()).isEqualTo(11);
    assertThat(entry.quarantineReason()).startsWith("gave up after 11 attempts over 10m (retry policy: linear, step 1m,"
        + " cap 1m, give up after 10m); last error: ").contains("422");
    assertThat(store.find(next).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
  }

  @Test
  public final void the_retry_budget_counts_from_the_first_failure_not_from_when_the_entry_became_deliverable() {
    UUID old = write("A", "old");
    Relay relay = relay(besideNeighbours(m -> DeliveryOutcome.retryable("422 from the schema registry")))
        .withRetryPolicy(RetryPolicy.linear().withBase(Duration.ofMinutes(1)).withCap(Duration.ofMinutes(1))
            .withGiveUpAfter(Duration.ofMinutes(10)).build())
        .build();
    clock.advance(Duration.ofHours(1)); // the entry waited an hour for a relay (an outage, a restart)
    Instant firstFailure = clock.instant();

    RelayResult first = flushBesideNeighbour(relay);
    clock.advance(Duration.ofMinutes(1));
    RelayResult second = flushBesideNeighbour(relay);

    assertThat(first.failed()).isEqualTo(1);
    assertThat(second.failed()).as("its budget was not spent before its first failure").isEqualTo(1);
    assertThat(second.quarantined()).isZero();
    OutboxEntry entry = store.find(old).orElseThrow();
    assertThat(entry.status()).isEqualTo(EntryStatus.FAILED);
    assertThat(entry.firstFailedAt()).isEqualTo(firstFailure);
  }

  @Test
  public final void after_a_requeue_the_reason_counts_failing_for_from_the_new_first_failure() {
    UUID poison = write("A", "poison");
    Relay relay = relay(besideNeighbours(m -> DeliveryOutcome.retryable("422 from the schema registry")))
        .withRetryPolicy(RetryPolicy.linear().withBase(Duration.ofMinutes(1)).withCap(Duration.ofMinutes(1))
            .withMaxAttempts(2).build())
        .build();
    flushBesideNeighbour(relay);
    clock.advance(Duration.ofMinutes(1));
    assertThat(flushBesideNeighbour(relay).quarantined()).isEqualTo(1);
    clock.advance(Duration.ofDays(1)); // a day in quarantine
    assertThat(store.requeue(poison, clock.instant())).isTrue();
    assertThat(store.find(poison).orElseThrow().firstFailedAt()).as("cleared by requeue").isNull();

    flushBesideNeighbour(relay);
    clock.advance(Duration.ofMinutes(1));
    RelayResult result = flushBesideNeighbour(relay);

    assertThat(result.quarantined()).isEqualTo(1);
    assertThat(store.find(poison).orElseThrow().quarantineReason()).startsWith("gave up after 2 attempts over 1m (");
  }

  // ------------------------------------------------------------------------------------------ late copies (§2)

  @Test
  public final void a_late_copy_never_overtakes_the_next_message_of_its_key_across_two_relays() {
    write("K", "K#0");
    write("K", "K#1");
    Duration bound = Duration.ofMillis(300);
    List<String> arrivals = new CopyOnWriteArrayList<>();
    // Relay 1's send of K#0 is on its way: the broker will store it, but its confirmation comes after the relay's
    // deadline.
    CompletableFuture<DeliveryOutcome> lateConfirmation = new CompletableFuture<>();
    Transport slow = new Transport() {
      @Override
      public java.util.concurrent.CompletionStage<DeliveryOutcome> deliver(Message message) {
        return neighbourOr(message, lateConfirmation);
      }

      @Override
      public Duration maxAnswerTime() {
        return bound;
      }
    };
    Transport prompt = new Transport() {
      @Override
      public java.util.concurrent.CompletionStage<DeliveryOutcome> deliver(Message message) {
        arrivals.add(text(message));
        return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
      }

      @Override
      public Duration maxAnswerTime() {
        return bound;
      }
    };
    RetryPolicy quickRetry = RetryPolicy.linear().withBase(Duration.ofMillis(1)).build();
    Relay first = Relay.builder(store, slow).withClock(clock).withRandom(HALF).withRetryPolicy(quickRetry)
        .withDeliveryTimeout(bound).build();
    Relay second = Relay.builder(secondStore(clock), prompt).withClock(clock).withRandom(HALF)
        .withRetryPolicy(quickRetry).build();
    Instant sendStarted = clock.instant();

    assertThat(flushBesideNeighbour(first).failed()).as("relay 1 gives up on K#0 at its deadline").isEqualTo(1);
    clock.advance(Duration.ofMillis(100));
    RelayResult early = second.drain(10);
    // The copy of relay 1's send lands now, inside the transport's bound; its confirmation follows, too late.
    arrivals.add("K#0");
    lateConfirmation.complete(DeliveryOutcome.delivered());
    clock.set(sendStarted.plus(bound));
    RelayResult later = second.drain(10);

    assertThat(early.claimed()).as("claimable before the transport's bound passed").isZero();
    assertThat(later.delivered()).isEqualTo(2);
    assertThat(arrivals).containsExactly("K#0", "K#0", "K#1");
    assertNoLaterMessageWasOvertaken(arrivals);
  }

  @Test
  public final void a_late_copy_bound_survives_quarantine_and_requeue() {
    UUID head = write("K", "K#0");
    write("K", "K#1");
    Duration bound = Duration.ofMillis(300);
    Instant sendStarted = clock.instant();
    Relay relay = timingOutOnce(bound);

    assertThat(flushBesideNeighbour(relay).quarantined()).as("K#0 times out and is given up at once").isEqualTo(1);
    assertThat(store.requeue(head, clock.instant())).isTrue();

    assertThat(store.claim(10, sendStarted.plus(bound).minusMillis(1), Duration.ofSeconds(30)))
        .as("a copy of the last send may still land").isEmpty();
    assertThat(store.claim(10, sendStarted.plus(bound), Duration.ofSeconds(30))).extracting(Claim::id)
        .containsExactly(head);
  }

  @Test
  public final void discarding_a_quarantined_head_keeps_its_late_copy_bound_on_the_next_entry_of_its_key() {
    UUID head = write("K", "K#0");
    UUID next = write("K", "K#1");
    Duration bound = Duration.ofMillis(300);
    Instant sendStarted = clock.instant();
    Relay relay = timingOutOnce(bound);

    assertThat(flushBesideNeighbour(relay).quarantined()).isEqualTo(1);
    assertThat(store.discard(head)).isTrue();

    assertThat(store.claim(10, sendStarted.plus(bound).minusMillis(1), Duration.ofSeconds(30)))
        .as("K#1 must not overtake a late copy of K#0").isEmpty();
    assertThat(store.claim(10, sendStarted.plus(bound), Duration.ofSeconds(30))).extracting(Claim::id)
        .containsExactly(next);
  }

  /** A relay whose transport never answers within {@code bound}, and whose retry policy gives up at once. */
  private Relay timingOutOnce(Duration bound) {
    Transport silent = new Transport() {
      @Override
      public java.util.concurrent.CompletionStage<DeliveryOutcome> deliver(Message message) {
        return neighbourOr(message, new CompletableFuture<>());
      }

      @Override
      public Duration maxAnswerTime() {
        return bound;
      }
    };
    return relay(silent).withDeliveryTimeout(bound).withRetryPolicy(RetryPolicy.linear().withMaxAttempts(1).build())
        .build();
  }

  // ------------------------------------------------------------------------------------------ recording (§3)

  @Test
  public final void a_huge_retry_after_is_capped_at_the_policy_cap_and_the_batch_is_recorded() {
    UUID ok = write("A", "ok");
    UUID throttled = write("B", "throttled");
    Relay relay = relay(InProcessTransport.of(m -> m.id().equals(ok)
            ? DeliveryOutcome.delivered()
            : DeliveryOutcome.retryableAfter("429", Duration.ofSeconds(Long.MAX_VALUE))))
        .withRetryPolicy(RetryPolicy.linear().withBase(Duration.ofSeconds(1)).withCap(Duration.ofMinutes(5)).build())
        .build();

    RelayResult result = relay.flush();

    assertThat(result.delivered()).isEqualTo(1);
    assertThat(result.failed()).isEqualTo(1);
    assertThat(store.find(ok)).isEmpty();
    assertThat(store.find(throttled).orElseThrow().availableAt()).isEqualTo(clock.instant().plus(Duration.ofMinutes(5)));
  }

  @Test
  public final void a_failure_to_record_one_outcome_loses_no_other_outcome() {
    UUID ok1 = write("A", "ok1");
    UUID unrecordable = write("B", "unrecordable");
    UUID failing = write("C", "failing");
    UUID ok2 = write("D", "ok2");
    OutboxStore real = store;
    OutboxStore refusingOne = (OutboxStore) java.lang.reflect.Proxy.newProxyInstance(
        OutboxStore.class.getClassLoader(), new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("markFailed") && args[0] instanceof Claim claim
              && claim.id().equals(unrecordable)) {
            throw new dev.outbox4j.OutboxException("value out of range for the store");
          }
          try {
            return method.invoke(real, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    Relay relay = Relay.builder(refusingOne, InProcessTransport.of(m -> m.id().equals(ok1) || m.id().equals(ok2)
            ? DeliveryOutcome.delivered()
            : DeliveryOutcome.retryable("500")))
        .withClock(clock).withRandom(HALF)
        .onEvent(new RelayListener() {
          @Override
          public void onError(Throwable error) {
            errors.add(error);
          }
        })
        .build();

    RelayResult result = relay.flush();

    assertThat(result.delivered()).isEqualTo(2);
    assertThat(result.failed()).isEqualTo(1);
    assertThat(store.find(ok1)).isEmpty();
    assertThat(store.find(ok2)).isEmpty();
    assertThat(store.find(failing).orElseThrow().attempts()).isEqualTo(1);
    assertThat(errors).singleElement().asString().contains("value out of range");
  }

  @Test
  public final void interrupting_a_flush_spoils_no_later_pass() throws Exception {
    UUID stuck = write("A", "never answered");
    CompletableFuture<Void> sent = new CompletableFuture<>();
    Relay relay = relay(message -> {
      if (message.id().equals(stuck)) {
        sent.complete(null);
        return new CompletableFuture<>();
      }
      return CompletableFuture.supplyAsync(DeliveryOutcome::delivered,
          CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));
    })
        .withDeliveryTimeout(Duration.ofSeconds(20))
        .build();
    AtomicReference<RelayResult> interrupted = new AtomicReference<>();
    Thread caller = new Thread(() -> interrupted.set(relay.flush()));
    caller.start();
    sent.orTimeout(10, TimeUnit.SECONDS).join();
    caller.interrupt();
    caller.join(10_000);
    assertThat(caller.isAlive()).isFalse();
    assertThat(interrupted.get().delivered()).isZero();

    UUID later = write("B", "later");
    RelayResult next = relay.flush();

    assertThat(next.delivered()).as("a later pass waits for its answer as usual").isEqualTo(1);
    assertThat(store.find(later)).isEmpty();
  }

  // ------------------------------------------------------------------------------------------ lifecycle (§3)

  @Test
  public final void an_error_in_the_background_worker_stops_the_relay_and_the_listener_hears_of_it() {
    write(null, "m");
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    Relay relay = relay(InProcessTransport.consuming(m -> { }))
        .onEvent(new RelayListener() {
          @Override
          public void onBatch(BatchReport report) {
            throw new LinkageError("a class went missing");
          }

          @Override
          public void onError(Throwable error) {
            errors.add(error);
          }
        })
        .build();

    relay.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> !relay.isRunning());

    assertThat(errors).singleElement().isInstanceOf(LinkageError.class);
    Assertions.assertTimeoutPreemptively(Duration.ofSeconds(5), relay::close);
  }

  @Test
  public final void closing_a_relay_that_never_started_returns_at_once_every_time() {
    Relay relay = relay(InProcessTransport.consuming(m -> { })).withShutdownGrace(Duration.ofSeconds(30)).build();

    Assertions.assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
      relay.close();
      relay.close();
    });
    assertThat(relay.isRunning()).isFalse();
  }

  @Test
  public final void close_called_from_a_listener_does_not_wait_for_itself() {
    write(null, "m");
    AtomicReference<Relay> self = new AtomicReference<>();
    CompletableFuture<Duration> closeTook = new CompletableFuture<>();
    Relay relay = relay(InProcessTransport.consuming(m -> { }))
        .withShutdownGrace(Duration.ofSeconds(30))
        .onEvent(new RelayListener() {
          @Override
          public void onBatch(BatchReport report) {
            long start = System.nanoTime();
            self.get().close();
            closeTook.complete(Duration.ofNanos(System.nanoTime() - start));
          }
        })
        .build();
    self.set(relay);

    relay.start();

    assertThat(closeTook.orTimeout(20, TimeUnit.SECONDS).join()).isLessThan(Duration.ofSeconds(5));
    await().atMost(Duration.ofSeconds(10)).until(() -> !relay.isRunning());
  }
}
