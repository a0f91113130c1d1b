package dev.outbox4j.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.Outgoing;
import dev.outbox4j.testkit.AtomicTestTransport;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A traced transport keeps the atomic batches of the transport it wraps, one span per batch, linked to each message. */
class TracingAtomicBatchesTest {
  private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk openTelemetry = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
      .build();

  @Test
  void a_batch_is_one_producer_span_linked_to_its_messages_traces_and_the_lane_is_kept_per_destination() {
    AtomicTestTransport inner = new AtomicTestTransport(Set.of("ledger", "audit"));
    TracingTransport traced = TracingTransport.wrap(inner, openTelemetry, "kafka");
    AtomicBatches lane = traced.atomicBatches("ledger");
    Message traced1 = Message.builder().withDestination("ledger").withOrderingKey("k").withPayload("1")
        .withHeader("traceparent", TRACEPARENT).build();
    Message untraced = Message.builder().withDestination("ledger").withOrderingKey("k").withPayload("2").build();

    BatchOutcome outcome = lane.deliverAll(List.of(new Outgoing(traced1, null), new Outgoing(untraced, null)),
        Instant.now()).toCompletableFuture().join();

    assertThat(outcome).isEqualTo(BatchOutcome.committed());
    assertThat(inner.landed()).containsExactly(traced1, untraced);
    assertThat(traced.atomicBatches("audit")).isSameAs(lane);
    assertThat(traced.atomicBatches("plain")).isNull();
    SpanData span = exporter.getFinishedSpanItems().get(0);
    assertThat(span.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(span.getName()).isEqualTo("send ledger");
    assertThat(span.getAttributes().get(AttributeKey.longKey("messaging.batch.message_count"))).isEqualTo(2L);
    assertThat(span.getLinks()).singleElement()
        .satisfies(link -> assertThat(link.getSpanContext().getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c"));
    assertThat(span.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
  }

  @Test
  void a_batch_that_did_not_commit_ends_its_span_in_error() {
    AtomicTestTransport inner = new AtomicTestTransport(Set.of("ledger"));
    inner.thenBatch(false, batch -> BatchOutcome.notDelivered("claim too old"));
    AtomicBatches lane = TracingTransport.wrap(inner, openTelemetry, "kafka").atomicBatches("ledger");
    Message message = Message.builder().withDestination("ledger").withPayload("1").build();

    lane.deliverAll(List.of(new Outgoing(message, null)), Instant.now()).toCompletableFuture().join();

    assertThat(exporter.getFinishedSpanItems()).singleElement()
        .satisfies(span -> assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR));
  }
}
