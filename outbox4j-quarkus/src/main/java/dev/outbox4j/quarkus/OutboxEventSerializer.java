package dev.outbox4j.quarkus;

/**
 * Turns an {@link OutboxEvent} into payload bytes. With {@code quarkus-jackson} the extension serializes with the
 * application's {@code ObjectMapper} (so an event's JSON follows the same customizations as the application's REST
 * responses); declare a bean of this type to use another format.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface OutboxEventSerializer {

  /**
   * @param event the fired event
   * @return the payload bytes, stored and sent verbatim
   * @throws RuntimeException if the event cannot be serialized; the {@code fire} call throws it and nothing is written
   */
  byte[] serialize(Object event);
}
