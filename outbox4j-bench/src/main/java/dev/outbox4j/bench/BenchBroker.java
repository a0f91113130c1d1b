package dev.outbox4j.bench;

import dev.outbox4j.spi.Transport;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A message broker as the broker end-to-end scenarios see it: one destination with a unique name for this scenario
 * (topic, exchange and queue, or stream), created by the constructor and deleted by {@link #close()}; outbox4j's real
 * transport pointed at it; and a {@link Publisher} that publishes with the same client library and the same
 * confirmation guarantee, for the hand-written baseline.
 *
 * <p>Both sides send the same record: the payload, the ordering key where the broker has one, the content type and
 * the message id (in the header or property the transport uses), so the broker does the same work for each.
 */
interface BenchBroker extends AutoCloseable {

  /** @return the scenario group and id prefix, for example {@code kafka} */
  String name();

  /** @return how the destination is set up and what confirms a publish, for the row label */
  String describe();

  /** @return a new outbox4j transport to the destination; the caller closes it */
  Transport transport();

  /** @return a new hand-written publisher to the destination; the caller closes it */
  Publisher publisher() throws Exception;

  /** Empties the destination between runs (not measured), where the broker allows it. */
  void purge() throws Exception;

  /** @return how many messages the destination holds (after the last {@link #purge()}) */
  long stored() throws Exception;

  /** Deletes the destination and releases the broker connections. */
  @Override
  void close() throws Exception;

  /**
   * One outbox row as the baseline read it.
   *
   * @param id the message id
   * @param orderingKey the ordering key, or {@code null}
   * @param payload the payload bytes
   * @param contentType the content type
   */
  record Row(String id, @Nullable String orderingKey, byte[] payload, String contentType) {}

  /** The baseline's publisher: the client library used directly, as a hand-written relay would. Not thread-safe. */
  interface Publisher extends AutoCloseable {
    /**
     * Publishes every row, then waits until the broker confirmed each one.
     *
     * @throws IllegalStateException if a publish was refused or unconfirmed
     */
    void publishAll(List<Row> rows) throws Exception;

    @Override
    void close() throws Exception;
  }
}
