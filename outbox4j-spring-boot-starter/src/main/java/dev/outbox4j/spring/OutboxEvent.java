package dev.outbox4j.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an application event type for the outbox: an instance published with Spring's
 * {@code ApplicationEventPublisher} inside a transaction is serialized (by the application's JSON mapper, through
 * {@link OutboxEventSerializer}) and written to the outbox in that same transaction. Published outside a transaction,
 * it is refused with {@link OutboxTransactionRequiredException}. Events of unmarked types are untouched.
 *
 * <pre>{@code
 * @OutboxEvent(destination = "orders/created", orderingKey = "orderId")
 * public record OrderCreated(String orderId, long totalCents) {}
 * }</pre>
 *
 * <p>Types that cannot carry the annotation (a library's) are mapped with an {@link OutboxEventRoute} bean instead.
 * The annotation is found on the event's class or any of its superclasses and interfaces.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface OutboxEvent {

  /** @return the message destination (a topic, {@code exchange/routingKey}, a subject, an endpoint alias) */
  String destination();

  /**
   * @return the name of the event property whose value is the ordering key (a record component, a getter
   *     {@code getX()}/{@code x()}, or a field); empty (the default) for no ordering key. A {@code null} value means no
   *     key for that event.
   */
  String orderingKey() default "";

  /** @return the content type of the serialized payload; default {@code application/json} */
  String contentType() default "application/json";
}
