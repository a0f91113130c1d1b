package dev.outbox4j.quarkus;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a CDI event type for the outbox: an instance fired with {@code Event<T>.fire(...)} (or
 * {@code BeanManager.getEvent()}) inside a JTA transaction is serialized ({@link OutboxEventSerializer}; JSON with the
 * application's Jackson {@code ObjectMapper} by default) and written to the outbox in that same transaction, by the
 * extension's observer of {@code TransactionPhase.IN_PROGRESS}. A rolled-back transaction sends nothing; fired outside
 * a transaction, the event is refused with {@link OutboxTransactionRequiredException} and the {@code fire} call throws
 * it. Events of unmarked types are untouched.
 *
 * <pre>{@code
 * @OutboxEvent(destination = "orders/placed", orderingKey = "orderId")
 * public record OrderPlaced(String orderId, long totalCents) {}
 *
 * @Inject Event<OrderPlaced> placed;
 *
 * @Transactional
 * public void place(Order order) {
 *   // ... the order's own INSERT
 *   placed.fire(new OrderPlaced(order.id(), order.totalCents()));   // written to the outbox, same transaction
 * }
 * }</pre>
 *
 * <p>The annotation is found on the event's class, a superclass or an interface. Asynchronous events
 * ({@code fireAsync}) are not written: they reach only {@code @ObservesAsync} observers, on another thread, outside
 * the caller's transaction.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface OutboxEvent {

  /**
   * @return the message destination (a topic, {@code exchange/routingKey}, a subject, an endpoint alias). Property
   *     expressions are expanded from the application's configuration when the first event of the type is written:
   *     {@code "/${orders.queue}"}, {@code "${orders.topic:orders}"} (with a default).
   */
  String destination();

  /**
   * @return the name of the event property whose value ({@code toString()}) is the ordering key: a record component,
   *     an accessor {@code x()} or {@code getX()}, or a field, of the type or a superclass; empty (the default) for no
   *     ordering key. A {@code null} value means no key for that event. A name that matches nothing fails the build.
   */
  String orderingKey() default "";

  /** @return the content type of the serialized payload; default {@code application/json} */
  String contentType() default "application/json";
}
