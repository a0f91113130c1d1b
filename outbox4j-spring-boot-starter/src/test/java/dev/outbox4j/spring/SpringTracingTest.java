package dev.outbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spring.app.OrderService;
import dev.outbox4j.spring.app.OrdersTestApplication;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.Queue;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter's tracing wiring with the application's {@link OpenTelemetry} bean (the SDK with the in-memory exporter):
 * a {@code @Transactional} write inside a span is delivered with that span's {@code traceparent}, and the relay's
 * PRODUCER span is its child.
 */
@SpringBootTest(classes = {OrdersTestApplication.class, SpringTracingTest.Sdk.class},
    properties = {"outbox4j.tables.prefix=sbo_", "outbox4j.relay.max-poll=200ms"})
class SpringTracingTest {
  static final InMemorySpanExporter EXPORTER = InMemorySpanExporter.create();

  @Autowired
  OrderService orders;
  @Autowired
  Queue<Message> delivered;
  @Autowired
  OpenTelemetry openTelemetry;

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", RunDatabases::postgresUrl);
  }

  @TestConfiguration(proxyBeanMethods = false)
  static class Sdk {
    @Bean
    OpenTelemetry openTelemetry() {
      return OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
          .addSpanProcessor(SimpleSpanProcessor.create(EXPORTER)).build()).build();
    }
  }

  @Test
  void a_write_inside_a_span_is_delivered_in_its_trace_under_a_producer_span() {
    String destination = "traced/" + UUID.randomUUID();
    Span parent = openTelemetry.getTracer("test").spanBuilder("checkout").startSpan();
    try (Scope ignored = parent.makeCurrent()) {
      orders.send(destination);
    } finally {
      parent.end();
    }
    Message message = await().atMost(Duration.ofSeconds(10)).until(() -> delivered.stream()
        .filter(m -> m.destination().equals(destination)).findFirst().orElse(null), m -> m != null);
    assertThat(message.headers().get("traceparent")).contains(parent.getSpanContext().getTraceId())
        .contains(parent.getSpanContext().getSpanId());

    SpanData producer = await().atMost(Duration.ofSeconds(10)).until(() -> EXPORTER.getFinishedSpanItems().stream()
        .filter(span -> span.getKind() == SpanKind.PRODUCER && span.getName().equals("send " + destination))
        .findFirst().orElse(null), span -> span != null);
    assertThat(producer.getTraceId()).isEqualTo(parent.getSpanContext().getTraceId());
    assertThat(producer.getParentSpanId()).isEqualTo(parent.getSpanContext().getSpanId());
    assertThat(producer.getAttributes().asMap().toString()).contains("messaging.system=inprocess");
  }
}
