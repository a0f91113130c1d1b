package dev.outbox4j.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayResult;
import dev.outbox4j.http.HttpTransport;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.jdbc.inbox.JdbcInbox;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.rabbitmq.RabbitMqTransport;
import dev.outbox4j.spi.Transport;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.InetSocketAddress;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One trace from the writer's span through the relay's PRODUCER span to a real RabbitMQ broker and a real HTTP
 * receiver, and on into the inbox's CONSUMER span, seen through the SDK's in-memory exporter.
 */
class TracePropagationTest {
  private static final TableNames NAMES = TableNames.withPrefix("otel_");

  private static HikariDataSource pool;
  private static JdbcOutboxStore store;
  private static JdbcInbox inbox;

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk openTelemetry = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
      .build();
  private final Tracer tracer = openTelemetry.getTracer("test");

  @BeforeAll
  static void openDatabase() throws SQLException {
    pool = new HikariDataSource();
    pool.setJdbcUrl(RunDatabases.postgresUrl());
    try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
      PostgresTestOutbox.dropOutboxSchema(statement, NAMES);
      statement.execute("DROP TABLE IF EXISTS otel_inbox");
    }
    store = JdbcOutboxStore.builder(pool).withTableNames(NAMES).build();
    store.migrate();
    inbox = JdbcInbox.builder(pool).withTableNames(NAMES).build();
    inbox.migrate();
  }

  @AfterAll
  static void closeDatabase() {
    pool.close();
  }

  @BeforeEach
  void emptyOutbox() throws SQLException {
    try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("DELETE FROM " + NAMES.qualified("outbox"));
    }
  }

  @Test
  void a_message_written_inside_a_span_reaches_rabbitmq_and_the_inbox_in_the_same_trace() throws Exception {
    String exchange = "outbox4j-otel-" + UUID.randomUUID();
    String queue = "outbox4j-otel-" + UUID.randomUUID();
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    try (com.rabbitmq.client.Connection connection = factory.newConnection("outbox4j-otel-test");
        Channel channel = connection.createChannel();
        Transport transport = TracingTransport.wrap(RabbitMqTransport.builder().build(), openTelemetry, "rabbitmq")) {
      channel.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, false, true, null);
      channel.queueDeclare(queue, false, false, true, null);
      channel.queueBind(queue, exchange, "orders");

      SpanContext writer = writeInsideSpan(exchange + "/orders");
      deliver(transport);

      GetResponse received = await().atMost(Duration.ofSeconds(10))
          .until(() -> channel.basicGet(queue, true), response -> response != null);
      Map<String, String> headers = new HashMap<>();
      received.getProps().getHeaders().forEach((name, value) -> headers.put(name, String.valueOf(value)));
      assertThat(traceIdOf(headers.get("traceparent"))).isEqualTo(writer.getTraceId());

      UUID messageId = UUID.fromString(received.getProps().getMessageId());
      consumeTwice(messageId, headers);
      assertProducerAndConsumerSpans(writer, "rabbitmq", exchange + "/orders", messageId);
    }
  }

  @Test
  void a_message_written_inside_a_span_reaches_an_http_receiver_with_the_same_trace_id() throws Exception {
    Map<String, String> arrived = new ConcurrentHashMap<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/hooks", exchange -> {
      exchange.getRequestHeaders().forEach((name, values) -> arrived.put(name.toLowerCase(), values.get(0)));
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    server.start();
    try (Transport transport = TracingTransport.wrap(HttpTransport.builder()
        .withEndpoint("hooks", URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hooks"))
        .build(), openTelemetry, "http")) {
      SpanContext writer = writeInsideSpan("hooks");
      deliver(transport);

      assertThat(arrived).containsKey("traceparent");
      assertThat(traceIdOf(arrived.get("traceparent"))).isEqualTo(writer.getTraceId());
      UUID messageId = UUID.fromString(arrived.get("outbox-message-id"));
      consumeTwice(messageId, arrived);
      assertProducerAndConsumerSpans(writer, "http", "hooks", messageId);
    } finally {
      server.stop(0);
    }
  }

  @Test
  void a_traceparent_set_by_the_caller_is_kept_and_no_span_means_no_header() {
    String own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    Message withOwn = Message.builder().withDestination("d").withHeader("traceparent", own).build();
    Span span = tracer.spanBuilder("writer").startSpan();
    try (Scope ignored = span.makeCurrent()) {
      assertThat(TracingOutbox.withContext(withOwn, io.opentelemetry.context.Context.current()).headers())
          .containsEntry("traceparent", own);
    } finally {
      span.end();
    }
    Message plain = Message.builder().withDestination("d").build();
    assertThat(TracingOutbox.withContext(plain, io.opentelemetry.context.Context.root())).isSameAs(plain);
  }

  private SpanContext writeInsideSpan(String destination) throws SQLException {
    Span parent = tracer.spanBuilder("place order").startSpan();
    try (Scope ignored = parent.makeCurrent(); Connection connection = pool.getConnection()) {
      connection.setAutoCommit(false);
      TracingOutbox.wrap(store.outbox()).write(connection, Message.builder().withDestination(destination)
          .withOrderingKey("order-17").withPayload("{\"order\":17}").build());
      connection.commit();
    } finally {
      parent.end();
    }
    return parent.getSpanContext();
  }

  private void deliver(Transport transport) {
    RelayResult result = Relay.builder(store, transport).build().drain(10);
    assertThat(result.delivered()).isEqualTo(1);
  }

  private void consumeTwice(UUID messageId, Map<String, String> headers) throws SQLException {
    TracingInbox<Connection> traced = TracingInbox.wrap(inbox, openTelemetry);
    for (int time = 0; time < 2; time++) {
      try (Connection connection = pool.getConnection()) {
        connection.setAutoCommit(false);
        Optional<String> result = traced.handleOnce(connection, "billing", messageId, headers, () -> "billed");
        assertThat(result.isPresent()).isEqualTo(time == 0);
        connection.commit();
      }
    }
  }

  private void assertProducerAndConsumerSpans(SpanContext writer, String system, String destination, UUID id) {
    List<SpanData> spans = exporter.getFinishedSpanItems();
    SpanData producer = spans.stream().filter(span -> span.getKind() == SpanKind.PRODUCER).findFirst().orElseThrow();
    assertThat(producer.getTraceId()).isEqualTo(writer.getTraceId());
    assertThat(producer.getParentSpanId()).isEqualTo(writer.getSpanId());
    assertThat(producer.getName()).isEqualTo("send " + destination);
    assertThat(producer.getAttributes().get(AttributeKey.stringKey("messaging.system"))).isEqualTo(system);
    assertThat(producer.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")))
        .isEqualTo(destination);
    assertThat(producer.getAttributes().get(AttributeKey.stringKey("messaging.message.id"))).isEqualTo(id.toString());
    assertThat(producer.getAttributes().get(AttributeKey.stringKey("outbox4j.ordering_key"))).isEqualTo("order-17");

    List<SpanData> consumers = spans.stream().filter(span -> span.getKind() == SpanKind.CONSUMER).toList();
    assertThat(consumers).hasSize(2).allSatisfy(consumer -> {
      assertThat(consumer.getTraceId()).isEqualTo(writer.getTraceId());
      assertThat(consumer.getParentSpanId()).isEqualTo(writer.getSpanId());
      assertThat(consumer.getName()).isEqualTo("process billing");
    });
    assertThat(consumers).extracting(span -> span.getAttributes().get(TracingInbox.DUPLICATE))
        .containsExactly(false, true);
  }

  private static String traceIdOf(String traceparent) {
    return traceparent.split("-")[1];
  }
}
