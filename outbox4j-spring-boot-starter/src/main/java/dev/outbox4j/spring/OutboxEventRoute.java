package dev.outbox4j.spring;

import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Marks an event type for the outbox without annotating it (for types the application does not own): declare one bean
 * per type. A route for a type takes precedence over an {@link OutboxEvent} annotation on it.
 *
 * <pre>{@code
 * @Bean
 * OutboxEventRoute<PaymentCaptured> paymentCaptured() {
 *   return OutboxEventRoute.of(PaymentCaptured.class, "payments/captured", PaymentCaptured::paymentId);
 * }
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 *
 * @param <E> the event type
 */
public final class OutboxEventRoute<E> {
  private final Class<E> type;
  private final String destination;
  private final Function<? super E, @Nullable String> orderingKey;
  private final String contentType;

  private OutboxEventRoute(Class<E> type, String destination, Function<? super E, @Nullable String> orderingKey,
      String contentType) {
    this.type = Objects.requireNonNull(type, "type");
    this.destination = Objects.requireNonNull(destination, "destination");
    this.orderingKey = Objects.requireNonNull(orderingKey, "orderingKey");
    this.contentType = Objects.requireNonNull(contentType, "contentType");
    if (destination.isBlank()) {
      throw new IllegalArgumentException("destination of the outbox event route for " + type.getName()
          + " must not be blank");
    }
  }

  /**
   * @param type the event type (instances of subtypes match too)
   * @param destination the message destination
   * @param orderingKey the ordering key of an event, or {@code null} for none
   * @param <E> the event type
   * @return a route whose payload is {@code application/json}
   */
  public static <E> OutboxEventRoute<E> of(Class<E> type, String destination,
      Function<? super E, @Nullable String> orderingKey) {
    return new OutboxEventRoute<>(type, destination, orderingKey, "application/json");
  }

  /**
   * @param type the event type
   * @param destination the message destination
   * @param <E> the event type
   * @return a route without an ordering key
   */
  public static <E> OutboxEventRoute<E> of(Class<E> type, String destination) {
    return of(type, destination, event -> null);
  }

  /**
   * @param value the payload's content type
   * @return a copy with that content type
   */
  public OutboxEventRoute<E> withContentType(String value) {
    return new OutboxEventRoute<>(type, destination, orderingKey, value);
  }

  /** @return the event type */
  public Class<E> type() {
    return type;
  }

  /** @return the destination */
  public String destination() {
    return destination;
  }

  /** @return the payload's content type */
  public String contentType() {
    return contentType;
  }

  /**
   * @param event an event of this route's type
   * @return its ordering key, or {@code null}
   */
  public @Nullable String orderingKeyOf(Object event) {
    return orderingKey.apply(type.cast(event));
  }
}
