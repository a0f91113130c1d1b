package dev.outbox4j.internal;

import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.Transport;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Which destinations the transport delivers in atomic batches ({@link Transport#atomicBatches}), asked once per
 * destination. Not API. Thread-safe.
 */
final class Lanes {
  private final Transport transport;
  private final Map<String, Optional<AtomicBatches>> byDestination = new ConcurrentHashMap<>();
  /** Whether any destination seen so far has atomic batches: only then are runs of a key worth claiming. */
  private volatile boolean any;

  Lanes(Transport transport) {
    this.transport = transport;
  }

  /** @return the destination's atomic batches, or {@code null} when its messages are sent one by one */
  @Nullable AtomicBatches of(String destination) {
    Optional<AtomicBatches> lane = byDestination.computeIfAbsent(destination,
        d -> Optional.ofNullable(transport.atomicBatches(d)));
    if (lane.isPresent()) {
      any = true;
    }
    return lane.orElse(null);
  }

  /** @return whether a destination with atomic batches has been seen */
  boolean any() {
    return any;
  }
}
