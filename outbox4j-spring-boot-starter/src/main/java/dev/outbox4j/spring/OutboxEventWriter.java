package dev.outbox4j.spring;

import dev.outbox4j.Message;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Listens to every application event and writes those of a type marked for the outbox ({@link OutboxEvent} or an
 * {@link OutboxEventRoute} bean) through {@link TransactionalOutbox}, in the publisher's thread and therefore in the
 * publisher's transaction: Spring delivers events to listeners synchronously unless the application configured an
 * asynchronous multicaster (then the write finds no transaction and is refused, which is the safe failure).
 *
 * <p>Unmarked events cost one map look-up per event type after the first. Thread-safe.
 */
public final class OutboxEventWriter implements ApplicationListener<ApplicationEvent> {
  private final Supplier<TransactionalOutbox> outbox;
  private final Supplier<@Nullable OutboxEventSerializer> serializer;
  private final Map<Class<?>, OutboxEventRoute<?>> registered = new ConcurrentHashMap<>();
  private final Map<Class<?>, Optional<OutboxEventRoute<?>>> resolved = new ConcurrentHashMap<>();

  /**
   * @param outbox writes in the current transaction
   * @param serializer supplies the payload serializer, or {@code null} when the application has none (a marked event
   *     then fails with a message saying so)
   * @param routes the registered routes
   */
  public OutboxEventWriter(TransactionalOutbox outbox, Supplier<@Nullable OutboxEventSerializer> serializer,
      List<OutboxEventRoute<?>> routes) {
    this(supplierOf(Objects.requireNonNull(outbox, "outbox")), serializer, routes);
  }

  /**
   * @param outbox supplies the outbox each marked event is written to, when one is written; may throw to refuse the
   *     event (with several outboxes and none chosen), which rolls back the publisher's transaction
   * @param serializer supplies the payload serializer, or {@code null} when the application has none
   * @param routes the registered routes
   */
  public OutboxEventWriter(Supplier<TransactionalOutbox> outbox, Supplier<@Nullable OutboxEventSerializer> serializer,
      List<OutboxEventRoute<?>> routes) {
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.serializer = Objects.requireNonNull(serializer, "serializer");
    for (OutboxEventRoute<?> route : routes) {
      if (registered.putIfAbsent(route.type(), route) != null) {
        throw new IllegalStateException("two OutboxEventRoute beans for " + route.type().getName());
      }
    }
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    Object payload = event instanceof PayloadApplicationEvent<?> wrapped ? wrapped.getPayload() : event;
    Optional<OutboxEventRoute<?>> route = resolved.computeIfAbsent(payload.getClass(), this::routeFor);
    if (route.isPresent()) {
      outbox.get().write(toMessage(payload, route.get()));
    }
  }

  private static Supplier<TransactionalOutbox> supplierOf(TransactionalOutbox outbox) {
    return () -> outbox;
  }

  private Message toMessage(Object event, OutboxEventRoute<?> route) {
    OutboxEventSerializer current = serializer.get();
    if (current == null) {
      throw new IllegalStateException("cannot write outbox event " + event.getClass().getName()
          + ": no OutboxEventSerializer bean (add spring-boot-starter-jackson, or define one)");
    }
    return Message.builder()
        .withDestination(route.destination())
        .withOrderingKey(route.orderingKeyOf(event))
        .withContentType(route.contentType())
        .withPayload(current.serialize(event))
        .build();
  }

  private Optional<OutboxEventRoute<?>> routeFor(Class<?> type) {
    for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
      OutboxEventRoute<?> route = registered.get(candidate);
      if (route != null) {
        return Optional.of(route);
      }
    }
    for (OutboxEventRoute<?> route : registered.values()) {
      if (route.type().isAssignableFrom(type)) {
        return Optional.of(route);
      }
    }
    OutboxEvent marked = AnnotatedElementUtils.findMergedAnnotation(type, OutboxEvent.class);
    if (marked == null) {
      return Optional.empty();
    }
    return Optional.of(annotated(type, marked));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static OutboxEventRoute<?> annotated(Class<?> type, OutboxEvent marked) {
    PropertyReader key = marked.orderingKey().isEmpty() ? event -> null : PropertyReader.of(type, marked.orderingKey());
    return OutboxEventRoute.of((Class) type, marked.destination(), key::read).withContentType(marked.contentType());
  }

  /** Reads one named property of an event: a record component, a getter, or a field. */
  @FunctionalInterface
  private interface PropertyReader {
    @Nullable String read(Object event);

    static PropertyReader of(Class<?> type, String name) {
      Method accessor = accessor(type, name);
      if (accessor != null) {
        accessor.trySetAccessible();
        return event -> text(invoke(accessor, event));
      }
      for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
        try {
          Field field = candidate.getDeclaredField(name);
          field.trySetAccessible();
          return event -> {
            try {
              return text(field.get(event));
            } catch (IllegalAccessException e) {
              throw new IllegalStateException("cannot read ordering key field " + name + " of " + type.getName(), e);
            }
          };
        } catch (NoSuchFieldException e) {
          // look in the superclass
        }
      }
      throw new IllegalStateException("@OutboxEvent on " + type.getName() + " names ordering key property '" + name
          + "', which is neither a record component, a getter nor a field");
    }

    private static @Nullable Method accessor(Class<?> type, String name) {
      if (type.isRecord()) {
        for (RecordComponent component : type.getRecordComponents()) {
          if (component.getName().equals(name)) {
            return component.getAccessor();
          }
        }
      }
      String capitalized = Character.toUpperCase(name.charAt(0)) + name.substring(1);
      for (String candidate : List.of("get" + capitalized, name)) {
        try {
          return type.getMethod(candidate);
        } catch (NoSuchMethodException e) {
          // try the next form
        }
      }
      return null;
    }

    private static @Nullable Object invoke(Method accessor, Object event) {
      try {
        return accessor.invoke(event);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot read ordering key " + accessor + " of " + event.getClass().getName(),
            e);
      }
    }

    private static @Nullable String text(@Nullable Object value) {
      return value == null ? null : value.toString();
    }
  }
}
