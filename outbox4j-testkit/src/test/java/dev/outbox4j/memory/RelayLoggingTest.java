package dev.outbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxException;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.testkit.SettableClock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the relay logs during a streak of failures: its start with the cause, a summary per minute, its end. */
class RelayLoggingTest {
  private static final Logger RELAY_LOGGER = Logger.getLogger("dev.outbox4j.relay");

  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord record) {
      records.add(record);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final SettableClock clock = SettableClock.atFixedStart();
  private final InMemoryOutboxStore store = InMemoryOutboxStore.builder().withClock(clock).build();

  @BeforeEach
  void captureTheRelayLogger() {
    RELAY_LOGGER.addHandler(capture);
    RELAY_LOGGER.setUseParentHandlers(false);
  }

  @AfterEach
  void releaseTheRelayLogger() {
    RELAY_LOGGER.removeHandler(capture);
    RELAY_LOGGER.setUseParentHandlers(true);
  }

  private List<String> messages(Level level) {
    return records.stream().filter(r -> r.getLevel() == level).map(LogRecord::getMessage).toList();
  }

  @Test
  void a_destination_outage_is_logged_at_its_start_once_a_minute_and_at_its_end() {
    for (int i = 0; i < 30; i++) {
      store.enqueue(Message.builder().withDestination("d").withPayload("m" + i).build());
    }
    AtomicBoolean down = new AtomicBoolean(true);
    AtomicInteger passes = new AtomicInteger();
    Relay relay = Relay.builder(store, InProcessTransport.of(m -> down.get()
            ? DeliveryOutcome.retryable("connection refused")
            : DeliveryOutcome.delivered()))
        .withClock(clock)
        .withOutageBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5))
        .withSleeper(clock::advance)
        .onEvent(new RelayListener() {
          @Override
          public void onBatch(dev.outbox4j.BatchReport report) {
            passes.incrementAndGet();
          }
        })
        .build();

    while (clock.instant().isBefore(SettableClock.atFixedStart().instant().plus(Duration.ofMinutes(5)))) {
      relay.drain(10);
      clock.advance(Duration.ofSeconds(1));
    }
    down.set(false);
    clock.advance(Duration.ofSeconds(10)); // past the next probe
    relay.drain(1);

    assertThat(passes.get()).isGreaterThan(60);
    List<String> warnings = messages(Level.WARNING);
    assertThat(warnings.get(0)).startsWith("destination 'd' failing: connection refused");
    assertThat(warnings.subList(1, warnings.size()))
        .hasSizeBetween(4, 5)
        .allSatisfy(line -> assertThat(line).startsWith("destination 'd' still failing: ").contains("connection refused"));
    assertThat(messages(Level.INFO)).singleElement().asString().startsWith("destination 'd' recovered after ");
  }

  @Test
  void a_store_outage_logs_one_stack_trace_then_summaries_then_the_recovery() {
    AtomicBoolean storeDown = new AtomicBoolean(true);
    OutboxStore failing = (OutboxStore) Proxy.newProxyInstance(OutboxStore.class.getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("claim") && storeDown.get()) {
            throw new OutboxException("connection refused: database restarting");
          }
          try {
            return method.invoke(store, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    AtomicInteger errors = new AtomicInteger();
    Relay relay = Relay.builder(failing, InProcessTransport.consuming(m -> { }))
        .withClock(clock)
        .withPollInterval(Duration.ofMillis(1), Duration.ofMillis(2))
        .onEvent(new RelayListener() {
          @Override
          public void onError(Throwable error) {
            errors.incrementAndGet();
          }
        })
        .build();
    try {
      relay.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> errors.get() >= 20);
      clock.advance(Duration.ofMinutes(1));
      int seen = errors.get();
      await().atMost(Duration.ofSeconds(30)).until(() -> errors.get() >= seen + 20);
      storeDown.set(false);
      await().atMost(Duration.ofSeconds(30)).until(() -> !messages(Level.INFO).isEmpty());
    } finally {
      relay.close();
    }

    List<String> warnings = messages(Level.WARNING);
    assertThat(warnings).hasSize(2);
    assertThat(warnings.get(0)).startsWith("relay pass failing: ").contains("database restarting");
    assertThat(warnings.get(1)).startsWith("relay pass still failing: ");
    assertThat(records.stream().filter(r -> r.getThrown() != null)).as("stack traces logged").hasSize(1);
    assertThat(messages(Level.INFO)).singleElement().asString().startsWith("relay pass recovered after ");
  }
}
