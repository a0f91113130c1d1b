package dev.outbox4j.opentelemetry;

import dev.outbox4j.inbox.Inbox;
import dev.outbox4j.inbox.InboxHandler;
import dev.outbox4j.inbox.Receipt;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * An {@link Inbox} whose {@link #handleOnce(Object, String, UUID, Map, InboxHandler)} runs the consumer's handler
 * inside an OpenTelemetry CONSUMER span that continues the trace named by the received message's {@code traceparent}
 * header: the trace that began where the message was written.
 *
 * <p>The span, named {@code process <consumerName>}, is current while the handler runs, so whatever the handler does
 * (database calls, further outbox writes) joins the trace. Attributes: {@code messaging.operation.type}={@code process},
 * {@code messaging.consumer.group.name} (the consumer name), {@code messaging.message.id}, and
 * {@code outbox4j.inbox.duplicate} ({@code true} when the message was already handled and the handler was skipped).
 * A handler that throws marks the span as an error; the exception passes through unchanged.
 *
 * <p>The other methods are the wrapped inbox's. Thread-safe when the wrapped inbox is.
 *
 * @param <T> the consumer's transaction handle
 */
public final class TracingInbox<T> implements Inbox<T> {
  static final AttributeKey<String> CONSUMER_GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
  static final AttributeKey<Boolean> DUPLICATE = AttributeKey.booleanKey("outbox4j.inbox.duplicate");

  private final Inbox<T> delegate;
  private final Tracer tracer;

  private TracingInbox(Inbox<T> delegate, OpenTelemetry openTelemetry) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.tracer = openTelemetry.getTracer(TracingTransport.INSTRUMENTATION_NAME);
  }

  /**
   * @param inbox the inbox that records message ids
   * @param openTelemetry where spans go
   * @param <T> its transaction handle
   * @return an inbox that traces {@link #handleOnce(Object, String, UUID, Map, InboxHandler)}
   */
  public static <T> TracingInbox<T> wrap(Inbox<T> inbox, OpenTelemetry openTelemetry) {
    return new TracingInbox<>(inbox, openTelemetry);
  }

  /**
   * Like {@link Inbox#handleOnce(Object, String, UUID, InboxHandler)}, inside a CONSUMER span whose parent is the
   * context in {@code headers}.
   *
   * @param transaction the consumer's open transaction
   * @param consumerName who consumes
   * @param messageId the message id
   * @param headers the received message's headers (broker headers); a missing {@code traceparent} starts a new trace
   * @param handler the effect; never run for a duplicate
   * @param <R> the handler's result
   * @param <X> the handler's checked exception
   * @return the handler's result, or empty for a duplicate
   * @throws X whatever the handler throws, unchanged
   */
  public <R, X extends Exception> Optional<R> handleOnce(T transaction, String consumerName, UUID messageId,
      Map<String, String> headers, InboxHandler<R, X> handler) throws X {
    Objects.requireNonNull(handler, "handler");
    Span span = tracer.spanBuilder("process " + consumerName)
        .setSpanKind(SpanKind.CONSUMER)
        .setParent(TraceHeaders.extract(headers))
        .setAttribute(TracingTransport.OPERATION_TYPE, "process")
        .setAttribute(TracingTransport.OPERATION_NAME, "process")
        .setAttribute(CONSUMER_GROUP, consumerName)
        .setAttribute(TracingTransport.MESSAGE_ID, messageId.toString())
        .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      if (!delegate.receive(transaction, consumerName, messageId).isFirst()) {
        span.setAttribute(DUPLICATE, true);
        return Optional.empty();
      }
      span.setAttribute(DUPLICATE, false);
      return Optional.of(Objects.requireNonNull(handler.handle(), "the inbox handler returned null"));
    } catch (Exception | Error e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR, String.valueOf(e.getMessage()));
      throw e;
    } finally {
      span.end();
    }
  }

  @Override
  public Receipt receive(T transaction, String consumerName, UUID messageId) {
    return delegate.receive(transaction, consumerName, messageId);
  }

  @Override
  public int purge(Instant olderThan, int limit) {
    return delegate.purge(olderThan, limit);
  }
}
