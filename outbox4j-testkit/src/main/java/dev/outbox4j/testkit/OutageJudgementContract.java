package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.QuarantineQuery;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's judgement of "down" (SPEC §4: an outage is not a poison message), run on any store: a destination that
 * confirms nothing is paused and charges nobody, also when only one entry can be tried per pass; a destination that
 * keeps confirming some messages is never paused, and the messages it refuses are charged and quarantined by the retry
 * policy. Subclass it and implement {@link #newStore}.
 *
 * <p>Time moves on a {@link SettableClock}, one tick per pass: no test sleeps.
 */
public abstract class OutageJudgementContract {
  private static final Duration TICK = Duration.ofSeconds(1);
  /** Three attempts, one second apart: a message failing on its own is quarantined within seconds. */
  private static final RetryPolicy THREE_ATTEMPTS = RetryPolicy.linear().withBase(Duration.ofSeconds(1))
      .withCap(Duration.ofSeconds(5)).withMaxAttempts(3).build();

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

  private UUID write(String destination, String key, String payload) {
    return store.enqueue(Message.builder().withDestination(destination).withOrderingKey(key).withPayload(payload)
        .build()).id();
  }

  private static String text(Message message) {
    return new String(message.payload(), StandardCharsets.UTF_8);
  }

  private List<OutboxEntry> quarantined() {
    return store.quarantined(QuarantineQuery.first(QuarantineQuery.MAX_LIMIT));
  }

  /** Counts the pauses and resumptions the relay reports. */
  private static final class Pauses implements RelayListener {
    final List<String> paused = new CopyOnWriteArrayList<>();
    final List<String> resumed = new CopyOnWriteArrayList<>();

    @Override
    public void onDestinationPaused(DestinationStatus status) {
      paused.add(status.destination());
    }

    @Override
    public void onDestinationResumed(String destination, Duration pausedFor) {
      resumed.add(destination);
    }
  }

  @Test
  public final void one_key_refused_far_longer_than_its_retry_budget_pauses_its_destination_and_charges_nothing() {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(write("partner-webhook", "aggregate-7", "m" + i));
    }
    AtomicBoolean down = new AtomicBoolean(true);
    List<String> arrivals = new CopyOnWriteArrayList<>();
    Pauses pauses = new Pauses();
    Relay relay = Relay.builder(store, InProcessTransport.of(m -> {
      if (down.get()) {
        return DeliveryOutcome.retryable("HTTP 503 from https://partner.example/hook");
      }
      arrivals.add(text(m));
      return DeliveryOutcome.delivered();
    })).withClock(clock).withRetryPolicy(THREE_ATTEMPTS).onEvent(pauses).build();

    // Ten minutes: the retry budget (3 attempts, seconds apart) many times over; one entry to try per pass.
    int tries = 0;
    for (int second = 0; second < 600; second++) {
      tries += relay.flush().attempted();
      clock.advance(TICK);
    }

    assertThat(tries).as("the head was tried again and again").isGreaterThan(20);
    assertThat(quarantined()).as("an outage, however long, quarantines nothing").isEmpty();
    for (UUID id : ids) {
      OutboxEntry entry = store.find(id).orElseThrow();
      assertThat(entry.attempts()).as("an outage is charged to nobody").isZero();
      assertThat(entry.firstFailedAt()).isNull();
    }
    assertThat(relay.pausedDestinations()).singleElement().satisfies(status -> {
      assertThat(status.destination()).isEqualTo("partner-webhook");
      assertThat(status.lastError()).contains("HTTP 503");
    });
    assertThat(pauses.paused).as("paused once, and it stayed so").containsExactly("partner-webhook");

    down.set(false);
    for (int second = 0; second < 120 && arrivals.size() < 5; second++) {
      relay.flush();
      clock.advance(TICK);
    }
    assertThat(arrivals).as("delivered in key order after recovery").containsExactly("m0", "m1", "m2", "m3", "m4");
    assertThat(relay.pausedDestinations()).isEmpty();
  }

  @Test
  public final void one_key_whose_destination_goes_down_after_confirming_is_never_quarantined() {
    write("partner-webhook", "aggregate-7", "m0");
    UUID head = write("partner-webhook", "aggregate-7", "m1");
    AtomicBoolean down = new AtomicBoolean(false);
    Relay relay = Relay.builder(store, InProcessTransport.of(m -> down.get()
            ? DeliveryOutcome.retryable("HTTP 502 from https://partner.example/hook")
            : DeliveryOutcome.delivered()))
        .withClock(clock).withRetryPolicy(RetryPolicy.linear().withBase(Duration.ofSeconds(1))
            .withCap(Duration.ofSeconds(5)).withMaxAttempts(2).build())
        .build();
    assertThat(relay.flush().delivered()).isEqualTo(1);
    down.set(true);

    for (int second = 0; second < 600; second++) {
      relay.flush();
      clock.advance(TICK);
    }

    OutboxEntry entry = store.find(head).orElseThrow();
    assertThat(entry.status()).isNotEqualTo(EntryStatus.QUARANTINED);
    assertThat(entry.attempts()).as("at most its first failure, right after a confirmation, is charged")
        .isLessThanOrEqualTo(1);
    assertThat(relay.pausedDestinations()).extracting(DestinationStatus::destination)
        .containsExactly("partner-webhook");
  }

  @Test
  public final void a_destination_that_confirms_small_messages_and_refuses_big_ones_is_never_paused() {
    Pauses pauses = new Pauses();
    List<String> arrivals = new CopyOnWriteArrayList<>();
    Relay relay = Relay.builder(store, InProcessTransport.of(m -> {
      if (text(m).startsWith("big")) {
        return DeliveryOutcome.retryable("HTTP 503 from https://erp.example/invoices");
      }
      arrivals.add(text(m));
      return DeliveryOutcome.delivered();
    })).withClock(clock).withRetryPolicy(THREE_ATTEMPTS).onEvent(pauses).build();
    List<UUID> big = new ArrayList<>();
    List<Instant> smallWritten = new ArrayList<>();
    Duration worstLag = Duration.ZERO;

    // Every second a new small invoice and a new big one, each on a key of its own; every third second two big ones
    // and no small one, so some passes hold refusals only (which were once taken for an outage).
    for (int second = 0; second < 120; second++) {
      if (second % 3 == 2) {
        big.add(write("legacy-erp", "invoice-b" + second, "big" + second));
        big.add(write("legacy-erp", "invoice-c" + second, "big-c" + second));
      } else {
        write("legacy-erp", "invoice-s" + second, "small" + second);
        smallWritten.add(clock.instant());
        big.add(write("legacy-erp", "invoice-b" + second, "big" + second));
      }
      relay.flush();
      int delivered = arrivals.size();
      if (delivered < smallWritten.size()) {
        Duration lag = Duration.between(smallWritten.get(delivered), clock.instant());
        worstLag = lag.compareTo(worstLag) > 0 ? lag : worstLag;
      }
      clock.advance(TICK);
    }
    for (int second = 0; second < 30; second++) { // the last big ones' retries, while small ones keep coming
      write("legacy-erp", "invoice-t" + second, "small-t" + second);
      relay.flush();
      clock.advance(TICK);
    }

    assertThat(pauses.paused).as("a destination that keeps confirming some messages is never paused").isEmpty();
    assertThat(relay.pausedDestinations()).isEmpty();
    assertThat(arrivals).as("every small invoice").hasSize(80 + 30);
    assertThat(worstLag).as("small invoices are delivered in the pass after they are written").isLessThan(
        Duration.ofSeconds(2));
    for (UUID id : big) {
      OutboxEntry entry = store.find(id).orElseThrow();
      assertThat(entry.status()).as("a refused invoice is the message's own failure").isEqualTo(EntryStatus.QUARANTINED);
      assertThat(entry.attempts()).isEqualTo(3);
      assertThat(entry.quarantineReason()).startsWith("gave up after 3 attempts").contains("HTTP 503");
    }
  }

  @Test
  public final void a_confirmation_counts_from_when_it_arrived_not_from_when_its_pass_recorded_it() {
    Duration window = Duration.ofSeconds(4);
    write("crm", "customer-1", "confirmed at the pass's start");
    write("slow-erp", "order-1", "answered only after the window");
    AtomicBoolean crmDown = new AtomicBoolean();
    Relay relay = Relay.builder(store, InProcessTransport.of(m -> {
      if (m.destination().equals("slow-erp")) {
        clock.advance(window.plusSeconds(1)); // the pass stands still, as in a long GC pause, before it records
        return DeliveryOutcome.delivered();
      }
      return crmDown.get() ? DeliveryOutcome.retryable("HTTP 503 from crm") : DeliveryOutcome.delivered();
    })).withClock(clock).withRetryPolicy(THREE_ATTEMPTS).withOutageBackoff(Duration.ofSeconds(1), window).build();

    relay.flush();
    UUID refused = write("crm", "customer-2", "refused right after the pass");
    crmDown.set(true);
    relay.flush();

    assertThat(store.find(refused).orElseThrow().attempts())
        .as("crm last confirmed a message more than the window ago: its 503 is no evidence against this message")
        .isZero();
  }
}
