package dev.outbox4j.spring.modulith;

import dev.outbox4j.Message;
import dev.outbox4j.spring.OutboxEventSerializer;
import dev.outbox4j.spring.TransactionalOutbox;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.expression.EvaluationContext;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.RoutingTarget;
import org.springframework.modulith.events.support.BrokerRouting;

/**
 * Writes every event the application's {@link EventExternalizationConfiguration} externalizes to the outbox, in the
 * publisher's thread and so in the publisher's transaction; other events are left alone.
 *
 * <p>Why here and not after the commit, as Modulith's own externalizers do: an externalizer that sends after the
 * commit needs a second record (Modulith's event publication) to survive a crash between the commit and the send,
 * republishes from that record without any order between events, and several instances republish the same record.
 * Written in the transaction, the event exists exactly when the business change committed, and the relay's claims
 * give it per-key commit order, fencing and a visible quarantine.
 *
 * <p>The mapping follows Modulith's meaning of the configuration: {@link EventExternalizationConfiguration#map} gives
 * the payload, serialized by the application's {@link OutboxEventSerializer} (its JSON mapper by default) and sent as
 * {@code application/json}; the routing target is the destination and the routing key the ordering key, both
 * evaluated as Modulith evaluates them (a {@code #{…}} SpEL template against the event, {@link BrokerRouting});
 * {@link EventExternalizationConfiguration#getHeadersFor} gives message headers (values as text, {@code null} values
 * left out). Without a transaction the write is refused ({@link dev.outbox4j.spring.OutboxTransactionRequiredException},
 * unless the starter is configured to open one) and the exception reaches the publisher.
 *
 * <p>Thread-safe.
 */
public final class ModulithEventWriter implements ApplicationListener<ApplicationEvent> {
  private static final String CONTENT_TYPE = "application/json";

  private final EventExternalizationConfiguration configuration;
  private final TransactionalOutbox outbox;
  private final OutboxEventSerializer serializer;
  private final EvaluationContext expressions;
  private final Map<RoutingTarget, BrokerRouting> routings = new ConcurrentHashMap<>();

  /**
   * @param configuration which events are externalized, where to and how they are mapped
   * @param outbox writes in the current transaction
   * @param serializer turns a mapped event into payload bytes
   * @param expressions the context routing expressions are evaluated in (with the application's beans resolvable)
   */
  public ModulithEventWriter(EventExternalizationConfiguration configuration, TransactionalOutbox outbox,
      OutboxEventSerializer serializer, EvaluationContext expressions) {
    this.configuration = Objects.requireNonNull(configuration, "configuration");
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.serializer = Objects.requireNonNull(serializer, "serializer");
    this.expressions = Objects.requireNonNull(expressions, "expressions");
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    Object payload = event instanceof PayloadApplicationEvent<?> wrapped ? wrapped.getPayload() : event;
    if (configuration.supports(payload)) {
      outbox.write(toMessage(payload));
    }
  }

  /**
   * @param event an event the configuration externalizes
   * @return the message it becomes
   * @throws IllegalStateException if its routing target evaluates to a blank destination
   */
  Message toMessage(Object event) {
    RoutingTarget target = configuration.determineTarget(event);
    BrokerRouting routing = routings.computeIfAbsent(target, key -> BrokerRouting.of(key, expressions));
    String destination = routing.getTarget(event);
    if (destination.isBlank()) {
      throw new IllegalStateException("the routing target of externalized event " + event.getClass().getName()
          + " (" + target + ") evaluates to a blank destination");
    }
    Message.Builder message = Message.builder()
        .withDestination(destination)
        .withOrderingKey(routing.getKey(event))
        .withContentType(CONTENT_TYPE)
        .withPayload(serializer.serialize(configuration.map(event)));
    configuration.getHeadersFor(event).forEach((name, value) -> {
      if (value != null) {
        message.withHeader(name, value.toString());
      }
    });
    return message.build();
  }
}
