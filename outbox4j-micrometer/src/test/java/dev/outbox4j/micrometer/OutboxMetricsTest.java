package dev.outbox4j.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.testkit.SettableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OutboxMetricsTest {
  private final SettableClock clock = SettableClock.atFixedStart();
  private final InMemoryOutboxStore store = InMemoryOutboxStore.builder().withClock(clock).build();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private void write(String payload) {
    store.enqueue(Message.builder().withDestination("d").withPayload(payload).build());
  }

  @Test
  void counters_and_timers_follow_the_relays_outcomes() {
    OutboxMetrics metrics = OutboxMetrics.builder(store).withClock(clock).withName("orders").withExecutor(Runnable::run).build();
    metrics.bindTo(registry);
    write("ok");
    write("retry");
    write("bad");
    Relay relay = Relay.builder(store, InProcessTransport.of(m -> switch (new String(m.payload())) {
          case "ok" -> DeliveryOutcome.delivered();
          case "retry" -> DeliveryOutcome.retryable("later");
          default -> DeliveryOutcome.permanent("never");
        }))
        .withClock(clock)
        .withRetryPolicy(RetryPolicy.linear().build())
        .onEvent(metrics)
        .build();

    relay.flush();

    assertThat(registry.get("outbox4j.delivered").tag("outbox", "orders").counter().count()).isEqualTo(1);
    assertThat(registry.get("outbox4j.failed").counter().count()).isEqualTo(1);
    assertThat(registry.get("outbox4j.quarantined").counter().count()).isEqualTo(1);
    assertThat(registry.get("outbox4j.delivery").timer().count()).isEqualTo(1);
    assertThat(registry.get("outbox4j.batch").tag("phase", "claim").timer().count()).isEqualTo(1);
    clock.advance(OutboxMetrics.DEFAULT_REFRESH); // the snapshot taken at bindTo is due for a refresh
    assertThat(registry.get("outbox4j.quarantine.size").gauge().value()).isEqualTo(1);
    assertThat(registry.get("outbox4j.pending").gauge().value()).isEqualTo(1);
  }

  @Test
  void entries_handed_back_during_an_outage_are_counted_as_postponed_not_failed() {
    OutboxMetrics metrics = OutboxMetrics.builder(store).withClock(clock).withExecutor(Runnable::run).build();
    metrics.bindTo(registry);
    write("a");
    write("b");
    Relay relay = Relay.builder(store, InProcessTransport.of(m -> DeliveryOutcome.unavailable("broker down")))
        .withClock(clock)
        .onEvent(metrics)
        .build();

    relay.flush();

    assertThat(registry.get("outbox4j.postponed").counter().count()).isEqualTo(2);
    assertThat(registry.get("outbox4j.failed").counter().count()).isZero();
    assertThat(registry.get("outbox4j.quarantined").counter().count()).isZero();
  }

  @Test
  void lag_is_the_age_of_the_oldest_waiting_entry_and_zero_when_none_waits() {
    OutboxMetrics metrics = OutboxMetrics.builder(store).withClock(clock).withRefreshInterval(Duration.ZERO).withExecutor(Runnable::run).build();
    metrics.bindTo(registry);

    assertThat(registry.get("outbox4j.lag").gauge().value()).isZero();
    write("a");
    clock.advance(Duration.ofSeconds(42));

    assertThat(registry.get("outbox4j.lag").gauge().value()).isEqualTo(42.0);
  }

  @Test
  void lag_leaves_out_entries_blocked_behind_a_quarantined_head_which_have_gauges_of_their_own() {
    OutboxMetrics metrics = OutboxMetrics.builder(store).withClock(clock).withRefreshInterval(Duration.ZERO)
        .withExecutor(Runnable::run).build();
    metrics.bindTo(registry);
    for (String payload : new String[] {"poison", "next", "after"}) {
      store.enqueue(Message.builder().withDestination("erp").withOrderingKey("order-1").withPayload(payload).build());
      clock.advance(Duration.ofSeconds(1));
    }
    Relay relay = Relay.builder(store, InProcessTransport.of(m -> new String(m.payload()).equals("poison")
            ? DeliveryOutcome.permanent("rejected") : DeliveryOutcome.delivered()))
        .withClock(clock)
        .onEvent(metrics)
        .build();
    relay.flush();
    clock.advance(Duration.ofSeconds(60));

    assertThat(registry.get("outbox4j.lag").gauge().value()).as("nothing waits").isZero();
    assertThat(registry.get("outbox4j.waiting").gauge().value()).isZero();
    assertThat(registry.get("outbox4j.blocked").gauge().value()).isEqualTo(2);
    assertThat(registry.get("outbox4j.blocked.age").gauge().value()).isEqualTo(62.0);
    assertThat(registry.get("outbox4j.pending").gauge().value()).isEqualTo(2);
    assertThat(registry.get("outbox4j.quarantine.size").gauge().value()).isEqualTo(1);

    store.enqueue(Message.builder().withDestination("crm").withPayload("fresh").build());
    clock.advance(Duration.ofSeconds(5));

    assertThat(registry.get("outbox4j.lag").gauge().value()).isEqualTo(5.0);
    assertThat(registry.get("outbox4j.waiting").gauge().value()).isEqualTo(1);
    assertThat(registry.get("outbox4j.blocked.age").gauge().value()).isEqualTo(67.0);
  }

  @Test
  void each_destination_with_undelivered_entries_has_its_own_gauges_until_it_drains() {
    OutboxMetrics metrics = OutboxMetrics.builder(store).withClock(clock).withRefreshInterval(Duration.ZERO)
        .withExecutor(Runnable::run).build();
    metrics.bindTo(registry);
    store.enqueue(Message.builder().withDestination("erp").withOrderingKey("k").withPayload("poison").build());
    store.enqueue(Message.builder().withDestination("erp").withOrderingKey("k").withPayload("behind").build());
    store.enqueue(Message.builder().withDestination("crm").withPayload("c1").build());
    store.enqueue(Message.builder().withDestination("crm").withPayload("c2").build());
    clock.advance(Duration.ofSeconds(30));
    registry.get("outbox4j.pending").gauge().value(); // a scrape: refreshes

    assertThat(registry.get("outbox4j.destination.waiting").tag("destination", "crm").gauge().value()).isEqualTo(2);
    assertThat(registry.get("outbox4j.destination.lag").tag("destination", "crm").gauge().value()).isEqualTo(30.0);
    assertThat(registry.get("outbox4j.destination.waiting").tag("destination", "erp").gauge().value()).isEqualTo(2);
    assertThat(registry.get("outbox4j.destination.blocked").tag("destination", "erp").gauge().value()).isZero();

    Relay relay = Relay.builder(store, InProcessTransport.of(m -> new String(m.payload()).equals("poison")
            ? DeliveryOutcome.permanent("rejected") : DeliveryOutcome.delivered()))
        .withClock(clock)
        .build();
    relay.drain(5);
    registry.get("outbox4j.pending").gauge().value();

    assertThat(registry.get("outbox4j.destination.blocked").tag("destination", "erp").tag("outbox", "default")
        .gauge().value()).isEqualTo(1);
    assertThat(registry.get("outbox4j.destination.waiting").tag("destination", "erp").gauge().value()).isZero();
    assertThat(registry.get("outbox4j.destination.lag").tag("destination", "erp").gauge().value()).isZero();
    assertThat(registry.find("outbox4j.destination.waiting").tag("destination", "crm").gauge())
        .as("crm drained: its rows are gone").isNull();
  }

  @Test
  void destination_gauges_turned_off_cost_no_query() {
    AtomicInteger queries = new AtomicInteger();
    OutboxStore counting = (OutboxStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("destinationStats")) {
            queries.incrementAndGet();
          }
          return method.invoke(store, args);
        });
    OutboxMetrics metrics = OutboxMetrics.builder(counting).withClock(clock).withDestinationGauges(0)
        .withExecutor(Runnable::run).build();
    write("a");
    metrics.bindTo(registry);

    assertThat(registry.get("outbox4j.pending").gauge().value()).isEqualTo(1);
    assertThat(registry.find("outbox4j.destination.waiting").gauges()).isEmpty();
    assertThat(queries.get()).isZero();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> OutboxMetrics.builder(store).withDestinationGauges(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("destinationGauges");
  }

  @Test
  void gauges_query_the_store_at_most_once_per_refresh_interval() {
    AtomicInteger queries = new AtomicInteger();
    OutboxStore counting = (OutboxStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("stats") || method.getName().equals("destinationStats")) {
            queries.incrementAndGet();
          }
          return method.invoke(store, args);
        });
    OutboxMetrics metrics = OutboxMetrics.builder(counting).withClock(clock).withExecutor(Runnable::run).build();
    metrics.bindTo(registry);

    for (int i = 0; i < 10; i++) {
      registry.get("outbox4j.pending").gauge().value();
      registry.get("outbox4j.lag").gauge().value();
    }
    assertThat(queries.get()).isEqualTo(1);
    clock.advance(OutboxMetrics.DEFAULT_REFRESH);
    registry.get("outbox4j.pending").gauge().value();
    assertThat(queries.get()).isEqualTo(2);
  }

  @Test
  void a_failing_stats_query_keeps_the_last_values() {
    AtomicInteger calls = new AtomicInteger();
    OutboxStore flaky = (OutboxStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> {
          if (method.getName().endsWith("tats") && calls.incrementAndGet() > 1) {
            throw new IllegalStateException("database down");
          }
          return method.invoke(store, args);
        });
    write("a");
    OutboxMetrics metrics = OutboxMetrics.builder(flaky).withClock(clock).withRefreshInterval(Duration.ZERO).withExecutor(Runnable::run).build();
    metrics.bindTo(registry);

    assertThat(registry.get("outbox4j.pending").gauge().value()).isEqualTo(1);
    assertThat(registry.get("outbox4j.pending").gauge().value()).isEqualTo(1);
    assertThat(calls.get()).as("the first snapshot at bindTo, then one failing query per read").isEqualTo(3);
  }

  @Test
  void a_scrape_during_a_database_outage_returns_at_once_with_the_last_values_and_their_age() throws Exception {
    write("a");
    java.util.concurrent.CountDownLatch outage = new java.util.concurrent.CountDownLatch(0);
    AtomicInteger started = new AtomicInteger();
    java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CountDownLatch> stall =
        new java.util.concurrent.atomic.AtomicReference<>(outage);
    OutboxStore hanging = (OutboxStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("stats") || method.getName().equals("destinationStats")) {
            java.util.concurrent.CountDownLatch latch = stall.get();
            if (latch.getCount() > 0) {
              started.incrementAndGet();
            }
            latch.await(); // a stats query stuck on a dead connection
          }
          return method.invoke(store, args);
        });
    OutboxMetrics metrics = OutboxMetrics.builder(hanging).withClock(clock).withRefreshInterval(Duration.ZERO).build();
    metrics.bindTo(registry);
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> registry.get("outbox4j.pending").gauge().value() == 1.0);
    java.util.concurrent.CountDownLatch down = new java.util.concurrent.CountDownLatch(1);
    stall.set(down);
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
      registry.get("outbox4j.pending").gauge().value(); // starts the refresh that will hang
      return started.get() >= 1;
    });

    clock.advance(Duration.ofSeconds(90));
    org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
      for (int i = 0; i < 100; i++) {
        assertThat(registry.get("outbox4j.pending").gauge().value()).isEqualTo(1.0);
      }
    });
    assertThat(registry.get("outbox4j.stats.age").gauge().value()).isGreaterThanOrEqualTo(90.0);
    assertThat(started.get()).as("stats queries started during the outage: one stuck, no pile-up").isEqualTo(1);

    down.countDown(); // the database answers again
    write("b");
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> registry.get("outbox4j.pending").gauge().value() == 2.0);
    assertThat(registry.get("outbox4j.stats.age").gauge().value()).isLessThan(90.0);
  }

  @Test
  void the_very_first_scrape_of_a_fresh_registry_has_real_numbers_and_no_NaN() {
    write("a");
    store.enqueue(Message.builder().withDestination("erp").withPayload("e").build());
    clock.advance(Duration.ofSeconds(3));
    OutboxMetrics metrics = OutboxMetrics.builder(store).withClock(clock).build(); // the default executor
    metrics.bindTo(registry);

    for (io.micrometer.core.instrument.Meter meter : registry.getMeters()) {
      for (io.micrometer.core.instrument.Measurement measurement : meter.measure()) {
        assertThat(measurement.getValue()).as(meter.getId().toString()).isNotNaN();
      }
    }
    assertThat(registry.get("outbox4j.pending").gauge().value()).isEqualTo(2);
    assertThat(registry.get("outbox4j.lag").gauge().value()).isEqualTo(3);
    assertThat(registry.get("outbox4j.destination.waiting").tag("destination", "erp").gauge().value()).isEqualTo(1);
    assertThat(registry.get("outbox4j.stats.age").gauge().value()).isZero();
    metrics.close();
  }

  @Test
  void before_any_stats_query_has_answered_the_gauges_read_minus_one_and_the_age_counts_from_binding() {
    OutboxStore down = (OutboxStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("stats") || method.getName().equals("destinationStats")) {
            throw new IllegalStateException("database down");
          }
          return method.invoke(store, args);
        });
    OutboxMetrics metrics = OutboxMetrics.builder(down).withClock(clock).withExecutor(Runnable::run).build();
    metrics.bindTo(registry);
    clock.advance(Duration.ofSeconds(30));

    for (String gauge : new String[] {"outbox4j.pending", "outbox4j.waiting", "outbox4j.blocked", "outbox4j.in.flight",
        "outbox4j.quarantine.size", "outbox4j.lag", "outbox4j.blocked.age"}) {
      assertThat(registry.get(gauge).gauge().value()).as(gauge).isEqualTo(OutboxMetrics.NO_ANSWER);
    }
    assertThat(registry.get("outbox4j.stats.age").gauge().value()).isEqualTo(30);
    metrics.close();
  }

  @Test
  void the_stats_are_refreshed_in_the_background_once_per_interval_without_any_scrape() {
    AtomicInteger queries = new AtomicInteger();
    OutboxStore counting = (OutboxStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("stats") || method.getName().equals("destinationStats")) {
            queries.incrementAndGet();
          }
          return method.invoke(store, args);
        });
    OutboxMetrics metrics = OutboxMetrics.builder(counting).withRefreshInterval(Duration.ofMillis(100)).build();
    metrics.bindTo(registry);

    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> queries.get() >= 4);
    metrics.close();
    int stopped = queries.get();
    org.awaitility.Awaitility.await().pollDelay(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2))
        .until(() -> true);
    assertThat(queries.get()).as("no refresh after close, but for one already started").isLessThanOrEqualTo(stopped + 1);
  }

  @Test
  void a_failed_stats_query_is_counted() {
    OutboxStore failing = (OutboxStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("stats") || method.getName().equals("destinationStats")) {
            throw new IllegalStateException("database down");
          }
          return method.invoke(store, args);
        });
    OutboxMetrics metrics = OutboxMetrics.builder(failing).withClock(clock).withRefreshInterval(Duration.ZERO)
        .withExecutor(Runnable::run).build();
    metrics.bindTo(registry);

    assertThat(registry.get("outbox4j.pending").gauge().value()).isEqualTo(OutboxMetrics.NO_ANSWER);
    assertThat(registry.get("outbox4j.stats.age").gauge().value()).isZero();
    assertThat(registry.get("outbox4j.stats.failures").counter().count()).as("at bindTo, and at the read")
        .isEqualTo(2);
  }

  @Test
  void a_paused_destination_has_its_own_gauges_until_it_resumes_while_the_others_flow() {
    OutboxMetrics metrics = OutboxMetrics.builder(store).withClock(clock).withExecutor(Runnable::run).build();
    metrics.bindTo(registry);
    java.util.concurrent.atomic.AtomicBoolean erpDown = new java.util.concurrent.atomic.AtomicBoolean(true);
    for (int i = 0; i < 3; i++) {
      store.enqueue(Message.builder().withDestination("erp").withPayload("e" + i).build());
      store.enqueue(Message.builder().withDestination("crm").withPayload("c" + i).build());
    }
    // unavailable: paused at once (a few retryable failures alone are undecided until the evidence window passes)
    Relay relay = Relay.builder(store, InProcessTransport.of(m -> m.destination().equals("erp") && erpDown.get()
            ? DeliveryOutcome.unavailable("connection refused") : DeliveryOutcome.delivered()))
        .withClock(clock)
        .onEvent(metrics)
        .build();

    assertThat(registry.find("outbox4j.destination.paused").gauges()).isEmpty();
    relay.flush();
    clock.advance(Duration.ofSeconds(7));

    assertThat(registry.get("outbox4j.destination.paused").tag("destination", "erp").gauge().value()).isEqualTo(1);
    assertThat(registry.get("outbox4j.destination.paused.duration").tag("destination", "erp").gauge().value())
        .isEqualTo(7);
    assertThat(registry.find("outbox4j.destination.paused").tag("destination", "crm").gauge()).isNull();
    assertThat(registry.get("outbox4j.delivered").counter().count()).isEqualTo(3);

    erpDown.set(false);
    clock.advance(Duration.ofMinutes(1));
    relay.drain(10);

    assertThat(relay.pausedDestinations()).isEmpty();
    assertThat(registry.find("outbox4j.destination.paused").gauges()).isEmpty();
    assertThat(registry.find("outbox4j.destination.paused.duration").gauges()).isEmpty();
  }

  @Test
  void destinations_paused_before_the_registry_is_bound_are_shown_once_it_is() {
    OutboxMetrics metrics = OutboxMetrics.builder(store).withClock(clock).build();
    metrics.onDestinationPaused(new dev.outbox4j.DestinationStatus("erp", dev.outbox4j.DestinationStatus.Cause.OUTAGE, clock.instant(),
        clock.instant().plusSeconds(1), "HTTP 503", 0));
    metrics.bindTo(registry);

    assertThat(registry.get("outbox4j.destination.paused").tag("destination", "erp").tag("outbox", "default")
        .gauge().value()).isEqualTo(1);
  }

  @Test
  void one_query_answers_the_outbox_and_its_destinations_while_they_are_fewer_than_the_limit() {
    java.util.Map<String, AtomicInteger> calls = new java.util.concurrent.ConcurrentHashMap<>();
    OutboxStore counting = (OutboxStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> {
          calls.computeIfAbsent(method.getName(), name -> new AtomicInteger()).incrementAndGet();
          return method.invoke(store, args);
        });
    write("a");
    store.enqueue(Message.builder().withDestination("e").withPayload("b").build());
    OutboxMetrics two = OutboxMetrics.builder(counting).withClock(clock).withDestinationGauges(2)
        .withExecutor(Runnable::run).build();
    two.bindTo(registry);

    assertThat(registry.get("outbox4j.pending").gauge().value()).as("the destinations' rows added up").isEqualTo(2);
    assertThat(registry.get("outbox4j.destination.waiting").tag("destination", "e").gauge().value()).isEqualTo(1);
    assertThat(calls.get("stats")).as("two destinations fill the limit of two: the whole is asked as well")
        .hasValue(1);

    OutboxMetrics three = OutboxMetrics.builder(counting).withClock(clock).withName("other")
        .withDestinationGauges(3).withExecutor(Runnable::run).build();
    three.bindTo(registry);
    assertThat(registry.get("outbox4j.pending").tag("outbox", "other").gauge().value()).isEqualTo(2);
    assertThat(calls.get("stats")).as("under the limit the rows are the whole: no second query").hasValue(1);
    assertThat(calls.get("destinationStats")).hasValue(2);
  }

  @Test
  void a_large_backlog_is_counted_less_often_a_second_per_ten_thousand_entries() {
    AtomicInteger queries = new AtomicInteger();
    OutboxStore counting = (OutboxStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> {
          if (method.getName().endsWith("tats")) {
            queries.incrementAndGet();
          }
          return method.invoke(store, args);
        });
    for (int i = 0; i < 20_000; i++) {
      write("backlog");
    }
    OutboxMetrics metrics = OutboxMetrics.builder(counting).withClock(clock).withRefreshInterval(Duration.ofMillis(100))
        .withExecutor(Runnable::run).build();
    metrics.bindTo(registry);
    assertThat(queries.get()).isEqualTo(1);

    clock.advance(Duration.ofMillis(1500)); // fifteen intervals, but 20,000 entries are read every 2 s
    registry.get("outbox4j.pending").gauge().value();
    assertThat(queries.get()).as("paced by the backlog, not by the interval").isEqualTo(1);

    clock.advance(Duration.ofMillis(500));
    registry.get("outbox4j.pending").gauge().value();
    assertThat(queries.get()).isEqualTo(2);
    metrics.close();
  }
}
