package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.testkit.SettableClock;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StatsSamplerTest {
  private final SettableClock clock = SettableClock.atFixedStart();
  private final InMemoryOutboxStore store = InMemoryOutboxStore.builder().withClock(clock).build();
  private final AtomicInteger queries = new AtomicInteger();
  private final AtomicBoolean down = new AtomicBoolean();

  /** @return the store, counting its stats queries, which fail while {@link #down} */
  private OutboxStore counted() {
    return (OutboxStore) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {OutboxStore.class},
        (proxy, method, args) -> {
          if (method.getName().endsWith("tats")) {
            queries.incrementAndGet();
            if (down.get()) {
              throw new IllegalStateException("database down");
            }
          }
          return method.invoke(store, args);
        });
  }

  private void write(String destination, int entries) {
    for (int i = 0; i < entries; i++) {
      store.enqueue(Message.builder().withDestination(destination).withPayload("x").build());
    }
  }

  @Test
  void one_query_reads_the_outbox_and_its_destinations() {
    write("a", 1);
    write("b", 1);
    try (StatsSampler sampler = new StatsSampler(counted(), () -> 0, Map::of, clock, Duration.ofSeconds(1))) {
      sampler.sample();

      assertThat(queries.get()).isEqualTo(1);
      assertThat(sampler.latest().stats().waiting()).isEqualTo(2);
      assertThat(sampler.latest().destinations()).hasSize(2);
      assertThat(sampler.pace()).isEqualTo(Duration.ofSeconds(1));
    }
  }

  @Test
  void a_large_backlog_spaces_the_readings_and_readiness_waits_for_the_next_one_due() {
    write("a", 30_000);
    try (StatsSampler sampler = new StatsSampler(counted(), () -> 0, Map::of, clock, Duration.ofMillis(100))) {
      sampler.sample();

      assertThat(sampler.pace()).as("a second per 10,000 entries").isEqualTo(Duration.ofSeconds(3));
      clock.advance(Duration.ofMillis(3100)); // 31 intervals: overdue for a 100 ms interval, not for the pace
      assertThat(sampler.ready()).isTrue();
      clock.advance(Duration.ofMillis(200));
      assertThat(sampler.ready()).as("two intervals after the next reading was due").isFalse();
    }
  }

  @Test
  void a_failed_reading_is_not_ready_and_the_next_comes_at_the_interval() {
    write("a", 30_000);
    try (StatsSampler sampler = new StatsSampler(counted(), () -> 0, Map::of, clock, Duration.ofMillis(100))) {
      sampler.start(); // the first reading on this thread; the next in 3 s
      assertThat(sampler.pace()).isEqualTo(Duration.ofSeconds(3));
      down.set(true);
      sampler.sampleSoon();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> sampler.lastError() != null);

      assertThat(sampler.ready()).isFalse();
      assertThat(sampler.pace()).as("waiting for a database that is down is no load on it")
          .isEqualTo(Duration.ofMillis(100));
    }
  }
}
