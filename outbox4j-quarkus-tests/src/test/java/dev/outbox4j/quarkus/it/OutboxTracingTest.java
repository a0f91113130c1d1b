package dev.outbox4j.quarkus.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Trace propagation with the Quarkus OpenTelemetry extension: a message written while a span is current carries that
 * span's W3C trace context in its headers, and the relay's delivery is a PRODUCER span continuing it (its child),
 * exported through the extension to the application's span exporter (in memory).
 */
@QuarkusTest
@TestProfile(OwnApplication.class)
@WithTestResource(PostgresAndRabbitMq.class)
class OutboxTracingTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  @RegisterExtension static final TestQueues queues = new TestQueues();

  @Inject Orders orders;
  @Inject DeliveredEntries delivered;
  @Inject Tracer tracer;
  @Inject InMemorySpanExporter spans;

  @Test
  void a_message_written_in_a_span_carries_its_trace_and_the_delivery_span_continues_it() {
    TestQueues.Queue queue = queues.queue("traced");
    Span request = tracer.spanBuilder("place order").startSpan();
    try (Scope ignored = request.makeCurrent()) {
      orders.place("traced-1", queue.destination());
    } finally {
      request.end();
    }
    SpanContext writer = request.getSpanContext();

    await().atMost(WAIT).until(() -> queue.received().contains("traced-1"));
    Message written = delivered.withPayload("traced-1").map(OutboxEntry::message).orElseThrow();
    assertThat(written.headers().get("traceparent"))
        .isEqualTo("00-" + writer.getTraceId() + "-" + writer.getSpanId() + "-01");

    await().atMost(WAIT).until(() -> producerSpan(queue.destination()).isPresent());
    SpanData send = producerSpan(queue.destination()).orElseThrow();
    assertThat(send.getTraceId()).isEqualTo(writer.getTraceId());
    assertThat(send.getParentSpanId()).isEqualTo(writer.getSpanId());
    assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.system"))).isEqualTo("rabbitmq");
    assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))
        .isEqualTo(written.id().toString());
  }

  @Test
  void a_message_written_with_no_span_current_carries_no_trace_context() {
    TestQueues.Queue queue = queues.queue("untraced");
    orders.place("untraced-1", queue.destination());

    await().atMost(WAIT).until(() -> queue.received().contains("untraced-1"));
    assertThat(delivered.withPayload("untraced-1").orElseThrow().message().headers()).doesNotContainKey("traceparent");
  }

  private Optional<SpanData> producerSpan(String destination) {
    return spans.getFinishedSpanItems().stream()
        .filter(span -> span.getKind() == SpanKind.PRODUCER && span.getName().equals("send " + destination))
        .findFirst();
  }
}
