package dev.outbox4j.spring;

/**
 * Turns an outbox event into payload bytes. The starter's default uses the application's Jackson {@code JsonMapper}
 * bean; define a bean of this type to use another format.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface OutboxEventSerializer {

  /**
   * @param event the published event (the payload of a {@code PayloadApplicationEvent}, or the event itself)
   * @return the payload bytes, stored and sent verbatim
   * @throws RuntimeException if the event cannot be serialized; the publishing call fails and nothing is written
   */
  byte[] serialize(Object event);
}
