package dev.outbox4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Takeovers of expired claims are told at INFO with their count: the first at once, then at most one line per 10 s
 * on the relay's clock, counting what happened since the line before; what is still uncounted when the relay stops is
 * told then.
 */
class RelayTakeoverLogTest {
  private static final Duration LEASE = Duration.ofSeconds(2);
  private final Logger logger = Logger.getLogger("dev.outbox4j.relay");
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord record) {
      lines.add(record.getLevel() + " " + record.getMessage());
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final Instant start = Instant.now().plusSeconds(5); // after every enqueue of the test (the store's own clock)
  private Instant now = start;
  private final Clock clock = new Clock() {
    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  };

  @BeforeEach
  void capture() {
    logger.addHandler(capture);
  }

  @AfterEach
  void release() {
    logger.removeHandler(capture);
  }

  @Test
  void takeovers_are_counted_at_info_at_most_once_per_ten_seconds() {
    InMemoryOutboxStore store = InMemoryOutboxStore.create();
    Transport confirms = message -> CompletableFuture.completedFuture(DeliveryOutcome.delivered());
    Relay relay = Relay.builder(store, confirms).withClock(clock).withLease(Duration.ofSeconds(30)).build();

    abandonClaims(store, 3); // a relay that died holding three claims
    now = now.plus(LEASE).plusSeconds(1);
    assertThat(relay.flush().delivered()).isEqualTo(3);
    assertThat(takeoverLines()).containsExactly(
        "INFO 3 expired claims taken over (an earlier claim ended without an outcome)");

    abandonClaims(store, 2);
    now = now.plus(LEASE).plusSeconds(1);
    assertThat(relay.flush().delivered()).isEqualTo(2);
    assertThat(takeoverLines()).as("within 10 s of the last line: counted, not told").hasSize(1);

    abandonClaims(store, 1);
    now = now.plusSeconds(8);
    assertThat(relay.flush().delivered()).isEqualTo(1);
    assertThat(takeoverLines()).last().isEqualTo(
        "INFO 3 expired claims taken over (an earlier claim ended without an outcome) in the last 11s");

    abandonClaims(store, 4);
    now = now.plus(LEASE).plusSeconds(1);
    relay.flush();
    relay.close();
    assertThat(takeoverLines()).hasSize(3).last().asString().startsWith("INFO 4 expired claims taken over");
    assertThat(lines).as("sent again after the doubt, counted alike")
        .contains("INFO 3 entries in doubt sent again (an earlier send had not landed, or the destination has no"
            + " atomic batches)");
  }

  private void abandonClaims(InMemoryOutboxStore store, int count) {
    for (int i = 0; i < count; i++) {
      store.enqueue(Message.builder().withDestination("d").build());
    }
    assertThat(store.claim(count, now, LEASE)).hasSize(count);
  }

  private List<String> takeoverLines() {
    return lines.stream().filter(line -> line.contains("taken over")).toList();
  }

  static {
    Logger.getLogger("dev.outbox4j.relay").setLevel(Level.INFO);
  }
}
