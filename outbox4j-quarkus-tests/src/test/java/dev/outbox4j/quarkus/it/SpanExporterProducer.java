package dev.outbox4j.quarkus.it;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The test application's span exporter: the Quarkus OpenTelemetry extension exports to every SpanExporter bean. */
@Singleton
public class SpanExporterProducer {
  @Produces
  @Singleton
  InMemorySpanExporter spans() {
    return InMemorySpanExporter.create();
  }
}
