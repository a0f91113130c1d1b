package dev.outbox4j.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** A traced transport hands CloudEvents deliveries to the transport it wraps, with the same PRODUCER span. */
class TracingTransportCloudEventsTest {
  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk openTelemetry = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
      .build();

  @Test
  void a_cloudevents_delivery_reaches_the_wrapped_transport_inside_a_producer_span() {
    List<CloudEvent> received = new ArrayList<>();
    Transport writesCloudEvents = new Transport() {
      @Override
      public CompletionStage<DeliveryOutcome> deliver(Message message) {
        return CompletableFuture.completedFuture(DeliveryOutcome.permanent("plain delivery not expected"));
      }

      @Override
      public CompletionStage<DeliveryOutcome> deliver(Message message, CloudEvent event) {
        received.add(event);
        return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
      }
    };
    Message message = Message.builder().withDestination("orders").withPayload("{}").build();
    Instant now = Instant.parse("2030-01-01T00:00:00Z");
    CloudEvent event = CloudEvent.of(new OutboxEntry(message, 1, EntryStatus.PENDING, 0, null, null, now, now, null,
        null, 1), CloudEventsMapping.binary("/shop", "com.example.order"));

    DeliveryOutcome outcome = TracingTransport.wrap(writesCloudEvents, openTelemetry, "http")
        .deliver(message, event).toCompletableFuture().join();

    assertThat(outcome).isEqualTo(DeliveryOutcome.delivered());
    assertThat(received).containsExactly(event);
    assertThat(exporter.getFinishedSpanItems()).singleElement()
        .satisfies(span -> assertThat(span.getKind()).isEqualTo(SpanKind.PRODUCER))
        .satisfies(span -> assertThat(span.getName()).isEqualTo("send orders"));
  }
}
