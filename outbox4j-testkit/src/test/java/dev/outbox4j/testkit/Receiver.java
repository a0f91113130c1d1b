package dev.outbox4j.testkit;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What the destinations of {@link RelayProtocolPropertyTest} receive: every copy that lands, checked against its key's
 * order as it lands, and the copies still on their way (a send the relay gave up on, or that failed after it left, may
 * land until its start plus the transport's answer time).
 *
 * <p>Not thread-safe: the relays call the transport one at a time (a frozen relay sends nothing).
 */
final class Receiver {
  /** A message as the receiver knows it: its label, key (or {@code null}) and position in its key's order. */
  record Sent(UUID id, String label, @Nullable String key, int index) {}

  /** A copy on its way, landing by the given time at the latest. */
  record OnTheWay(Sent message, Instant landsBy) {}

  private final Map<UUID, Integer> copies = new HashMap<>();
  /** Per key, the highest position of which a copy landed. */
  private final Map<String, Sent> latestOfKey = new HashMap<>();
  private final List<OnTheWay> onTheWay = new ArrayList<>();

  /**
   * A copy lands.
   *
   * @return the broken invariant, {@code [key-order]} or {@code [late-copy]}, or {@code null}
   */
  @Nullable String land(Sent message) {
    int earlier = copies.merge(message.id(), 1, Integer::sum) - 1;
    if (message.key() == null) {
      return null;
    }
    Sent latest = latestOfKey.get(message.key());
    if (latest != null && latest.index() > message.index()) {
      return earlier == 0
          ? "[key-order] the first copy of " + message.label() + " lands after " + latest.label() + " of its key"
          : "[late-copy] a copy of " + message.label() + " (copy " + (earlier + 1) + ") lands after "
              + latest.label() + " of its key: a late copy overtook";
    }
    if (latest == null || message.index() > latest.index()) {
      latestOfKey.put(message.key(), message);
    }
    return null;
  }

  /** @return how many copies of the message landed */
  int copiesOf(UUID id) {
    return copies.getOrDefault(id, 0);
  }

  /** A copy is on its way and lands by {@code landsBy}, unless it lands earlier. */
  void onItsWay(Sent message, Instant landsBy) {
    onTheWay.add(new OnTheWay(message, landsBy));
  }

  /** @return the copies on their way, oldest bound first */
  List<OnTheWay> onTheWay() {
    List<OnTheWay> all = new ArrayList<>(onTheWay);
    all.sort(Comparator.comparing(OnTheWay::landsBy));
    return all;
  }

  /** Takes a copy off its way (it lands now, which the caller records with {@link #land}). */
  void arrived(OnTheWay copy) {
    onTheWay.remove(copy);
  }
}
