package dev.outbox4j.relay.runtime;

import dev.outbox4j.Message;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * Sends each message through the transport configured for its destination: one relay drains one outbox into several
 * brokers. A destination that no route names goes to the fallback transport, or, without one, fails permanently (the
 * entry is quarantined, visible, and can be requeued once the configuration names it).
 *
 * <p>Immutable and thread-safe when the transports are.
 */
public final class RoutingTransport implements Transport {
  private final Map<String, Transport> routes;
  private final @Nullable Transport fallback;
  private final Set<Transport> all = new LinkedHashSet<>();
  private final Map<String, Transport> named;

  /**
   * @param routes the transport of each destination; copied
   * @param fallback the transport of every other destination, or {@code null} to refuse them
   */
  public RoutingTransport(Map<String, Transport> routes, @Nullable Transport fallback) {
    this(routes, fallback, Map.of());
  }

  /**
   * @param routes the transport of each destination; copied
   * @param fallback the transport of every other destination, or {@code null} to refuse them
   * @param named the transports by their configured name, for reports; copied
   */
  public RoutingTransport(Map<String, Transport> routes, @Nullable Transport fallback, Map<String, Transport> named) {
    this.named = Map.copyOf(named);
    this.routes = Map.copyOf(routes);
    this.fallback = fallback;
    all.addAll(this.routes.values());
    if (fallback != null) {
      all.add(fallback);
    }
  }

  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    Transport transport = routes.getOrDefault(message.destination(), fallback);
    return transport == null ? unrouted(message) : transport.deliver(message);
  }

  /** Routes a CloudEvents delivery the same way. */
  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message, CloudEvent event) {
    Transport transport = routes.getOrDefault(message.destination(), fallback);
    return transport == null ? unrouted(message) : transport.deliver(message, event);
  }

  /** @return the atomic batches of the transport the destination is routed to, if it has them */
  @Override
  public @Nullable AtomicBatches atomicBatches(String destination) {
    Transport transport = routes.getOrDefault(destination, fallback);
    return transport == null ? null : transport.atomicBatches(destination);
  }

  private static CompletionStage<DeliveryOutcome> unrouted(Message message) {
    return CompletableFuture.completedFuture(DeliveryOutcome.permanent(
        "no transport is configured for destination '" + message.destination() + "' (see 'destinations')"));
  }

  /** @return the longest bound of the transports it routes to */
  @Override
  public Duration maxAnswerTime() {
    return all.stream().map(Transport::maxAnswerTime).max(Duration::compareTo).orElse(Duration.ZERO);
  }

  /** Closes every transport, each once. */
  @Override
  public void close() {
    RuntimeException first = null;
    for (Transport transport : all) {
      try {
        transport.close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public String toString() {
    return "RoutingTransport" + routes.keySet() + (fallback == null ? "" : " + *");
  }

  /** @return the transports by their configured name (empty when built without names) */
  public Map<String, Transport> named() {
    return named;
  }

  /** @return the destinations with a route of their own */
  public Set<String> destinations() {
    return routes.keySet();
  }

}
