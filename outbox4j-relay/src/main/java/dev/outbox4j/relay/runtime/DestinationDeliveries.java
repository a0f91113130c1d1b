package dev.outbox4j.relay.runtime;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.RelayListener;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts this relay's deliveries per destination, for the dashboard's per-destination delivered rate. The store cannot
 * tell a rate without reading delivered history, and does not keep it at all when it deletes on delivery; the relay
 * knows every delivery it confirms.
 *
 * <p>One count per destination this relay ever delivered to (a few words each). Thread-safe.
 */
public final class DestinationDeliveries implements RelayListener {
  private final Map<String, LongAdder> delivered = new ConcurrentHashMap<>();

  @Override
  public void onDelivered(OutboxEntry entry, Duration deliveryTime) {
    delivered.computeIfAbsent(entry.message().destination(), d -> new LongAdder()).increment();
  }

  /** @return the deliveries per destination since this relay started */
  public Map<String, Long> totals() {
    Map<String, Long> totals = new HashMap<>();
    delivered.forEach((destination, count) -> totals.put(destination, count.sum()));
    return totals;
  }
}
