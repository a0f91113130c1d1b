package dev.outbox4j.opentelemetry;

import dev.outbox4j.Message;
import dev.outbox4j.Outbox;
import io.opentelemetry.context.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An {@link Outbox} that stores the writer's current OpenTelemetry context with each message, as W3C
 * {@code traceparent} and {@code tracestate} headers, so the relay's PRODUCER span and the consumer's span join the
 * writer's trace.
 *
 * <p>A message that already carries a {@code traceparent} header is written as it is: the caller's context wins. When
 * no span is current (or no SDK is installed) nothing is added. Everything else, validation and errors included, is
 * the wrapped outbox's.
 *
 * <p>Thread-safe when the wrapped outbox is.
 *
 * @param <T> the caller's transaction handle
 */
public final class TracingOutbox<T> implements Outbox<T> {
  private final Outbox<T> delegate;

  private TracingOutbox(Outbox<T> delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /**
   * @param outbox the outbox that writes
   * @param <T> its transaction handle
   * @return an outbox that adds the current trace context before writing
   */
  public static <T> TracingOutbox<T> wrap(Outbox<T> outbox) {
    return new TracingOutbox<>(outbox);
  }

  @Override
  public void write(T transaction, Message message) {
    delegate.write(transaction, withContext(message, Context.current()));
  }

  @Override
  public void writeAll(T transaction, List<Message> messages) {
    Context context = Context.current();
    List<Message> traced = new ArrayList<>(messages.size());
    for (Message message : messages) {
      traced.add(withContext(Objects.requireNonNull(message, "message"), context));
    }
    delegate.writeAll(transaction, traced);
  }

  /**
   * @param message a message about to be written
   * @param context the writer's context
   * @return the message with the context's trace headers, or the message itself when it has a {@code traceparent}
   *     or the context has no span
   */
  static Message withContext(Message message, Context context) {
    if (message.headers().containsKey(TraceHeaders.TRACEPARENT)) {
      return message;
    }
    Map<String, String> headers = TraceHeaders.of(context);
    return headers.isEmpty() ? message : message.toBuilder().withHeaders(headers).build();
  }
}
