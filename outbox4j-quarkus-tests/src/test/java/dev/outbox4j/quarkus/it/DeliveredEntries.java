package dev.outbox4j.quarkus.it;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.RelayListener;
import io.quarkus.arc.Unremovable;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The entries the test application's relay delivered, as it claimed them (destination, ordering key, content type,
 * headers): what the writer stored, which the broker's copy does not all carry.
 */
@Singleton
@Unremovable
public class DeliveredEntries implements RelayListener {
  private final List<OutboxEntry> delivered = new CopyOnWriteArrayList<>();

  @Override
  public void onDelivered(OutboxEntry entry, Duration deliveryTime) {
    delivered.add(entry);
  }

  /** @return the delivered entry whose payload is that text, if there is one */
  public Optional<OutboxEntry> withPayload(String payload) {
    return delivered.stream().filter(entry -> new String(entry.message().payload(), StandardCharsets.UTF_8).equals(payload)).findFirst();
  }
}
