package dev.outbox4j.opentelemetry;

import dev.outbox4j.Message;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Outgoing;
import dev.outbox4j.spi.Transport;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Transport} that records each delivery as an OpenTelemetry PRODUCER span, parented on the trace context the
 * writer stored in the message's headers ({@link TracingOutbox}), so the send appears inside the trace of the request
 * that wrote the message, however much later the relay sends it.
 *
 * <p>The message goes to the wrapped transport unchanged: its {@code traceparent} header still names the writer's
 * span, so a consumer that continues the trace from the broker headers lands in the same trace (SPEC §2: stored and
 * sent on unchanged). The span ends when the wrapped transport's stage completes; a retryable or permanent outcome
 * sets the span's status to error, with the reason as its description and {@code error.type} set to
 * {@code retryable} or {@code permanent}.
 *
 * <p>Span name {@code send <destination>}; attributes from the messaging semantic conventions:
 * {@code messaging.system}, {@code messaging.destination.name}, {@code messaging.message.id},
 * {@code messaging.operation.type}={@code send}, {@code messaging.operation.name}={@code send}; the ordering key as
 * {@code messaging.kafka.message.key} on Kafka and as {@code outbox4j.ordering_key} everywhere.
 *
 * <p>Thread-safe when the wrapped transport is.
 */
public final class TracingTransport implements Transport {
  /** The instrumentation scope name of the spans this module opens. */
  public static final String INSTRUMENTATION_NAME = "dev.outbox4j";

  static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
  static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
  static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
  static final AttributeKey<String> KAFKA_KEY = AttributeKey.stringKey("messaging.kafka.message.key");
  static final AttributeKey<String> ORDERING_KEY = AttributeKey.stringKey("outbox4j.ordering_key");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<Long> BATCH_SIZE = AttributeKey.longKey("messaging.batch.message_count");

  private final Transport delegate;
  private final Tracer tracer;
  private final String system;

  private TracingTransport(Transport delegate, OpenTelemetry openTelemetry, String system) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.tracer = openTelemetry.getTracer(INSTRUMENTATION_NAME);
    this.system = Objects.requireNonNull(system, "system");
    if (system.isBlank()) {
      throw new IllegalArgumentException("system must not be blank");
    }
  }

  /**
   * @param transport the transport that sends
   * @param openTelemetry where spans go (for example {@code GlobalOpenTelemetry.get()})
   * @param system the {@code messaging.system} value: {@code kafka}, {@code rabbitmq}, {@code nats}, {@code http}...
   * @return a transport that traces each delivery
   * @throws IllegalArgumentException if system is blank
   */
  public static TracingTransport wrap(Transport transport, OpenTelemetry openTelemetry, String system) {
    return new TracingTransport(transport, openTelemetry, system);
  }

  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    return traced(message, () -> delegate.deliver(message));
  }

  /** Traces a CloudEvents delivery the same way. */
  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message, CloudEvent event) {
    return traced(message, () -> delegate.deliver(message, event));
  }

  private CompletionStage<DeliveryOutcome> traced(Message message,
      Supplier<CompletionStage<DeliveryOutcome>> send) {
    SpanBuilder builder = tracer.spanBuilder("send " + message.destination())
        .setSpanKind(SpanKind.PRODUCER)
        .setParent(TraceHeaders.extract(message.headers()))
        .setAttribute(SYSTEM, system)
        .setAttribute(DESTINATION, message.destination())
        .setAttribute(MESSAGE_ID, message.id().toString())
        .setAttribute(OPERATION_TYPE, "send")
        .setAttribute(OPERATION_NAME, "send");
    message.orderingKey().ifPresent(key -> {
      builder.setAttribute(ORDERING_KEY, key);
      if (system.equals("kafka")) {
        builder.setAttribute(KAFKA_KEY, key);
      }
    });
    Span span = builder.startSpan();
    return inSpan(span, send).whenComplete((outcome, error) -> {
      if (error != null) {
        failed(span, error);
      } else if (outcome instanceof DeliveryOutcome.Retryable retryable) {
        span.setAttribute(ERROR_TYPE, "retryable");
        span.setStatus(StatusCode.ERROR, retryable.reason());
      } else if (outcome instanceof DeliveryOutcome.Permanent permanent) {
        span.setAttribute(ERROR_TYPE, "permanent");
        span.setStatus(StatusCode.ERROR, permanent.reason());
      }
      span.end();
    });
  }

  /**
   * The wrapped transport's atomic batches, traced: one producer span per batch ({@code send <destination>}, or
   * {@code send} when the batch spans several), linked to the trace of each message it carries, with the batch's size
   * and outcome.
   */
  @Override
  public @Nullable AtomicBatches atomicBatches(String destination) {
    AtomicBatches lane = delegate.atomicBatches(destination);
    // one traced lane per delegate lane: the relay puts a pass's messages of one lane in one batch
    return lane == null ? null : tracedLanes.computeIfAbsent(lane, TracedBatches::new);
  }

  private final java.util.Map<AtomicBatches, TracedBatches> tracedLanes =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final class TracedBatches implements AtomicBatches {
    private final AtomicBatches lane;

    TracedBatches(AtomicBatches lane) {
      this.lane = lane;
    }

    @Override
    public CompletionStage<BatchOutcome> deliverAll(List<Outgoing> batch, Instant claimedAt) {
      String destination = batch.stream().map(o -> o.message().destination()).distinct().count() == 1
          ? batch.get(0).message().destination() : null;
      SpanBuilder builder = tracer.spanBuilder(destination == null ? "send" : "send " + destination)
          .setSpanKind(SpanKind.PRODUCER)
          .setNoParent()
          .setAttribute(SYSTEM, system)
          .setAttribute(OPERATION_TYPE, "send")
          .setAttribute(OPERATION_NAME, "send")
          .setAttribute(BATCH_SIZE, (long) batch.size());
      if (destination != null) {
        builder.setAttribute(DESTINATION, destination);
      }
      for (Outgoing outgoing : batch) {
        SpanContext linked = Span.fromContext(TraceHeaders.extract(outgoing.message().headers())).getSpanContext();
        if (linked.isValid()) {
          builder.addLink(linked);
        }
      }
      Span span = builder.startSpan();
      return inSpan(span, () -> lane.deliverAll(batch, claimedAt)).whenComplete((outcome, error) -> {
        if (error != null) {
          failed(span, error);
        } else if (!(outcome instanceof BatchOutcome.Committed)) {
          span.setAttribute(ERROR_TYPE, outcome == null ? "unknown" : outcome.getClass().getSimpleName());
          span.setStatus(StatusCode.ERROR, String.valueOf(outcome));
        }
        span.end();
      });
    }

    @Override
    public CompletionStage<Set<UUID>> deliveredEarlier(Collection<Message> messages, Instant since) {
      return lane.deliveredEarlier(messages, since);
    }
  }

  /** Starts a send with {@code span} current; a send that throws ends the span in error and throws on. */
  private static <T> CompletionStage<T> inSpan(Span span, Supplier<CompletionStage<T>> send) {
    try (Scope ignored = span.makeCurrent()) {
      return send.get();
    } catch (RuntimeException e) {
      failed(span, e);
      span.end();
      throw e;
    }
  }

  private static void failed(Span span, Throwable error) {
    span.recordException(error);
    span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
  }

  /** @return the wrapped transport's bound: tracing adds no wait */
  @Override
  public Duration maxAnswerTime() {
    return delegate.maxAnswerTime();
  }

  /** Closes the wrapped transport. */
  @Override
  public void close() {
    delegate.close();
  }

  /** @return the wrapped transport */
  public Transport delegate() {
    return delegate;
  }

}
