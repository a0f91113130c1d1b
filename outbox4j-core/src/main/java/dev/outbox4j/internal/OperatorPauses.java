package dev.outbox4j.internal;

import dev.outbox4j.spi.OperatorPause;
import dev.outbox4j.spi.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The destinations an operator paused, as this relay last read them from the store. Not API.
 *
 * <h2>Why cached, and why the last known set survives a failed read</h2>
 * An operator pauses a destination from another process (the relay app's {@code pause} command), so the pauses live in
 * the store and every relay must read them. Reading them on every pass would add a round trip to the hot path of a
 * busy relay; reading them at most once per {@link #REFRESH} (on the relay's clock) bounds that cost to one small query
 * a second, and a pause takes effect within about that second. A failed read (the database away for a moment) keeps
 * the last known set, so an operator's pause is not lifted by a blip, and is logged as one streak, not once a pass.
 *
 * <p>Thread-safe: every method is synchronized; a refresh is one short store call.
 */
final class OperatorPauses {
  /** The longest a relay uses a set of pauses before reading it again. */
  static final Duration REFRESH = Duration.ofSeconds(1);

  private final OutboxStore store;
  private final Clock clock;
  private final RelayLog.Streak readFailures;
  private Map<String, OperatorPause> known = Map.of();
  private @Nullable Instant readAt;

  OperatorPauses(OutboxStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
    this.readFailures = new RelayLog.Streak("reading the operator's destination pauses", clock);
  }

  /** @return the pauses, by destination, read again first when the last read is {@link #REFRESH} old */
  synchronized Map<String, OperatorPause> current() {
    Instant now = clock.instant();
    if (readAt == null || !now.isBefore(readAt.plus(REFRESH))) {
      readAt = now;
      try {
        Map<String, OperatorPause> read = new LinkedHashMap<>();
        for (OperatorPause pause : store.operatorPauses()) {
          read.put(pause.destination(), pause);
        }
        known = Map.copyOf(read);
        readFailures.recovered();
      } catch (RuntimeException e) {
        readFailures.failed(RelayLog.describe(e) + "; keeping the last known pauses", e);
      }
    }
    return known;
  }

  /** @return the pauses as last read, without reading */
  synchronized Map<String, OperatorPause> known() {
    return known;
  }
}
