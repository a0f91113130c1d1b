package dev.outbox4j.quarkus.runtime;

import dev.outbox4j.Message;
import dev.outbox4j.quarkus.OutboxEvent;
import dev.outbox4j.quarkus.OutboxEventSerializer;
import dev.outbox4j.quarkus.TransactionalOutbox;
import io.smallrye.common.expression.Expression;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jspecify.annotations.Nullable;

/**
 * Writes the CDI events of {@link OutboxEvent} types to the outbox, in the thread and therefore the JTA transaction of
 * the code that fired them: it observes every synchronous event ({@code Object}) during
 * {@link TransactionPhase#IN_PROGRESS}, so the write happens inside {@code fire(...)}, before it returns. A write that
 * fails (no transaction, a message over a limit, a serializer error) makes {@code fire} throw, and the caller's
 * {@code @Transactional} method rolls back as for any exception of its own.
 *
 * <p>Why one observer of {@code Object} rather than one per type: the marked types are found at build time too (the
 * deployment module registers them for reflection and checks their ordering-key property), but an event type may
 * inherit the annotation from an interface or come from a library outside the application's index; a per-type cache
 * keeps the cost of an unmarked event to one look-up after its type's first.
 *
 * <p>{@code outbox4j.events.enabled=false} switches the writing off. Thread-safe.
 */
@Singleton
public class OutboxEventWriter {
  private final Instance<TransactionalOutbox> outbox;
  private final Instance<OutboxEventSerializer> serializer;
  private final Instance<Outbox4jConfig> config;
  private final ClassValue<Optional<Route>> routes = new ClassValue<>() {
    @Override
    protected Optional<Route> computeValue(Class<?> type) {
      return marking(type).map(marked -> Route.of(type, marked, ConfigProvider.getConfig()));
    }
  };

  /**
   * @param outbox writes in the current transaction (resolved at the first marked event)
   * @param serializer the application's serializer, or the extension's JSON one
   * @param config {@code outbox4j.events.enabled} (read at the first marked event: this observer also sees the
   *     container's own events, fired before the run-time configuration exists)
   */
  @Inject
  public OutboxEventWriter(Instance<TransactionalOutbox> outbox, Instance<OutboxEventSerializer> serializer,
      Instance<Outbox4jConfig> config) {
    this.outbox = outbox;
    this.serializer = serializer;
    this.config = config;
  }

  /**
   * Writes the event when its type is marked; called by CDI for every synchronous event.
   *
   * @param event the fired event
   * @throws dev.outbox4j.quarkus.OutboxTransactionRequiredException if the event is marked and no transaction is in
   *     progress (and none may be opened)
   * @throws IllegalStateException if the event is marked and cannot be mapped (no serializer, an unresolvable
   *     destination property)
   */
  void onEvent(@Observes(during = TransactionPhase.IN_PROGRESS) Object event) {
    Optional<Route> route = routes.get(event.getClass());
    if (route.isPresent() && config.get().events().enabled()) {
      outbox.get().write(route.get().toMessage(event, serializer()));
    }
  }

  private OutboxEventSerializer serializer() {
    if (!serializer.isResolvable()) {
      throw new IllegalStateException("cannot write an @OutboxEvent: no OutboxEventSerializer bean (add the "
          + "quarkus-jackson extension for JSON, or declare one)");
    }
    return serializer.get();
  }

  /** @return the annotation on the type, a superclass or an interface (the nearest first) */
  static Optional<OutboxEvent> marking(Class<?> type) {
    Deque<Class<?>> candidates = new ArrayDeque<>();
    Set<Class<?>> seen = new HashSet<>();
    candidates.add(type);
    while (!candidates.isEmpty()) {
      Class<?> candidate = candidates.poll();
      if (!seen.add(candidate)) {
        continue;
      }
      OutboxEvent marked = candidate.getDeclaredAnnotation(OutboxEvent.class);
      if (marked != null) {
        return Optional.of(marked);
      }
      if (candidate.getSuperclass() != null) {
        candidates.add(candidate.getSuperclass());
      }
      candidates.addAll(java.util.List.of(candidate.getInterfaces()));
    }
    return Optional.empty();
  }

  /** How the events of one type become messages: the destination resolved once, the ordering key read per event. */
  record Route(String destination, Function<Object, @Nullable String> orderingKey, String contentType) {

    static Route of(Class<?> type, OutboxEvent marked, Config config) {
      Function<Object, @Nullable String> key = marked.orderingKey().isEmpty()
          ? event -> null : propertyReader(type, marked.orderingKey());
      return new Route(destination(type, marked.destination(), config), key, marked.contentType());
    }

    Message toMessage(Object event, OutboxEventSerializer serializer) {
      return Message.builder()
          .withDestination(destination)
          .withOrderingKey(orderingKey.apply(event))
          .withContentType(contentType)
          .withPayload(serializer.serialize(event))
          .build();
    }

    /** Expands {@code ${name}} and {@code ${name:default}} from the application's configuration. */
    static String destination(Class<?> type, String value, Config config) {
      if (!value.contains("${")) {
        return value;
      }
      return Expression.compile(value).evaluate((context, builder) -> {
        Optional<String> found = config.getOptionalValue(context.getKey(), String.class);
        if (found.isPresent()) {
          builder.append(found.get());
        } else if (context.hasDefault()) {
          context.expandDefault();
        } else {
          throw new IllegalStateException("@OutboxEvent on " + type.getName() + ": destination '" + value
              + "' names the property " + context.getKey() + ", which is not set");
        }
      });
    }

    /** Reads the property: an accessor {@code x()} or {@code getX()}, or a field, of the type or a superclass. */
    static Function<Object, @Nullable String> propertyReader(Class<?> type, String property) {
      String getter = "get" + property.substring(0, 1).toUpperCase(Locale.ROOT) + property.substring(1);
      for (Class<?> level = type; level != null && level != Object.class; level = level.getSuperclass()) {
        for (String name : new String[] {property, getter}) {
          try {
            Method accessor = level.getDeclaredMethod(name);
            if (accessor.getReturnType() != void.class) {
              return reading(accessor, type);
            }
          } catch (NoSuchMethodException e) {
            // not at this level
          }
        }
        try {
          return reading(level.getDeclaredField(property), type);
        } catch (NoSuchFieldException e) {
          // not at this level
        }
      }
      throw new IllegalStateException("@OutboxEvent on " + type.getName() + " names the ordering key property '"
          + property + "', which is neither a record component, an accessor " + property + "() or " + getter
          + "(), nor a field");
    }

    private static <M extends AccessibleObject & Member> Function<Object, @Nullable String> reading(M member,
        Class<?> type) {
      member.trySetAccessible();
      return event -> {
        try {
          Object value = member instanceof Method method ? method.invoke(event) : ((Field) member).get(event);
          return value == null ? null : value.toString();
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot read the ordering key " + member.getName() + " of "
              + type.getName(), e);
        }
      };
    }
  }
}
