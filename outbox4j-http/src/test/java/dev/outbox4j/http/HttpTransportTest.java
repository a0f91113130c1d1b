package dev.outbox4j.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.testkit.TcpProxy;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Classification, Retry-After, timeouts, signing and configuration, each against a real local HTTP server. */
class HttpTransportTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");

  private final WebhookServer server = new WebhookServer();

  @AfterEach
  void stopServer() {
    server.close();
  }

  private HttpTransport transportTo(String path, Clock clock) {
    return HttpTransport.builder()
        .withEndpoint("hook", server.uri(path))
        .withSignatureScheme(SignatureScheme.OUTBOX4J)
        .withSigningSecret("s3cret-for-tests")
        .withClock(clock)
        .withRequestTimeout(Duration.ofSeconds(10))
        .build();
  }

  private static Message message() {
    return Message.builder().withDestination("hook").withOrderingKey("customer-7")
        .withPayload("{\"total\":12}").withContentType("application/json")
        .withHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").build();
  }

  private static DeliveryOutcome deliver(HttpTransport transport, Message message) throws Exception {
    return transport.deliver(message).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @ParameterizedTest(name = "HTTP {0} is {1}")
  @CsvSource({
      "200, delivered", "201, delivered", "202, delivered", "204, delivered",
      "400, permanent", "401, unavailable", "403, permanent", "404, permanent", "410, permanent", "422, permanent",
      "301, permanent",
      "408, retryable", "429, retryable", "500, retryable", "502, retryable", "503, retryable", "504, retryable"})
  void each_status_code_is_classified(int status, String expected) throws Exception {
    try (HttpTransport transport = transportTo("/status/" + status, Clock.systemUTC())) {
      DeliveryOutcome outcome = deliver(transport, message());

      switch (expected) {
        case "delivered" -> assertThat(outcome).isEqualTo(DeliveryOutcome.delivered());
        case "permanent" -> assertThat(outcome).isInstanceOf(DeliveryOutcome.Permanent.class);
        case "unavailable" -> assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class,
            r -> assertThat(r.transportUnavailable()).isTrue());
        default -> assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class,
            r -> assertThat(r.retryAfter()).isNull());
      }
      assertThat(outcome.toString()).doesNotContain("s3cret-for-tests");
    }
  }

  @Test
  void retry_after_in_seconds_is_the_requested_delay() throws Exception {
    try (HttpTransport transport = transportTo("/status/503/retry-after/7", Clock.systemUTC())) {
      assertThat(deliver(transport, message())).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class,
          r -> assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(7)));
    }
  }

  @Test
  void retry_after_as_an_http_date_is_turned_into_a_delay_from_the_transport_clock() throws Exception {
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.ofInstant(NOW.plusSeconds(120),
        ZoneOffset.UTC));
    String path = "/status/429/retry-after/" + URLEncoder.encode(date, StandardCharsets.UTF_8).replace("+", "%20");
    try (HttpTransport transport = transportTo(path, Clock.fixed(NOW, ZoneOffset.UTC))) {
      assertThat(deliver(transport, message())).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class,
          r -> assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(120)));
    }
  }

  @Test
  void a_retry_after_date_in_the_past_asks_for_no_delay_and_garbage_is_ignored() {
    HttpTransport transport = transportTo("/ok", Clock.fixed(NOW, ZoneOffset.UTC));
    assertThat(transport.retryAfter("Wed, 01 Jan 2020 00:00:00 GMT")).contains(Duration.ZERO);
    assertThat(transport.retryAfter("soon")).isEmpty();
    assertThat(transport.retryAfter("-5")).isEmpty();
  }

  @Test
  void a_response_slower_than_the_request_timeout_is_retryable() throws Exception {
    try (HttpTransport transport = HttpTransport.builder().withEndpoint("hook", server.uri("/slow"))
        .withRequestTimeout(Duration.ofMillis(300)).build()) {
      assertThat(deliver(transport, message())).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class,
          r -> assertThat(r.reason()).contains("timeout"));
    }
  }

  @Test
  void the_bound_is_the_connect_timeout_plus_the_request_timeout() {
    try (HttpTransport own = HttpTransport.builder().withEndpoint("hook", server.uri("/ok"))
            .withConnectTimeout(Duration.ofSeconds(2)).withRequestTimeout(Duration.ofSeconds(4)).build();
        HttpTransport given = HttpTransport.builder().withEndpoint("hook", server.uri("/ok"))
            .withHttpClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build())
            .withRequestTimeout(Duration.ofSeconds(4)).build();
        HttpTransport givenWithoutConnectTimeout = HttpTransport.builder().withEndpoint("hook", server.uri("/ok"))
            .withHttpClient(HttpClient.newHttpClient()).withConnectTimeout(Duration.ofSeconds(3))
            .withRequestTimeout(Duration.ofSeconds(4)).build();
        HttpTransport defaults = HttpTransport.builder().withEndpoint("hook", server.uri("/ok")).build()) {
      assertThat(own.maxAnswerTime()).isEqualTo(Duration.ofSeconds(6));
      assertThat(own.client().connectTimeout()).contains(Duration.ofSeconds(2));
      assertThat(own.client().followRedirects()).isEqualTo(HttpClient.Redirect.NEVER);
      assertThat(given.maxAnswerTime()).isEqualTo(Duration.ofSeconds(5));
      assertThat(givenWithoutConnectTimeout.maxAnswerTime()).as("the builder's connect timeout bounds it")
          .isEqualTo(Duration.ofSeconds(7));
      assertThat(defaults.maxAnswerTime())
          .isEqualTo(HttpTransport.DEFAULT_CONNECT_TIMEOUT.plus(HttpTransport.DEFAULT_REQUEST_TIMEOUT));
    }
  }

  @Test
  void a_receiver_that_reads_nothing_is_answered_retryable_by_the_bound() throws Exception {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", server.uri("/ok").getPort());
        HttpTransport transport = HttpTransport.builder()
            .withEndpoint("hook", URI.create("http://127.0.0.1:" + proxy.port() + "/ok"))
            .withConnectTimeout(Duration.ofMillis(500)).withRequestTimeout(Duration.ofMillis(500)).build()) {
      proxy.stall();
      long start = System.nanoTime();
      DeliveryOutcome outcome = deliver(transport, message());
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      proxy.resume();

      assertThat(outcome).isInstanceOf(DeliveryOutcome.Retryable.class);
      assertThat(took).isLessThan(transport.maxAnswerTime().plus(Duration.ofMillis(500)));
    }
  }

  @Test
  void a_receiver_holding_the_secret_can_verify_the_signature_and_a_tampered_body_fails() throws Exception {
    Instant sendTime = Instant.now();
    try (HttpTransport transport = transportTo("/ok", Clock.systemUTC())) {
      Message message = message();
      assertThat(deliver(transport, message)).isEqualTo(DeliveryOutcome.delivered());

      WebhookServer.Request request = server.next(WAIT);
      String timestamp = request.header(HttpTransport.TIMESTAMP_HEADER);
      String signature = request.header(HttpTransport.SIGNATURE_HEADER);
      // What a receiver in any language does: HMAC-SHA256(secret, timestamp + "." + body), hex, compare.
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec("s3cret-for-tests".getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
      String expected = "sha256=" + HexFormat.of().formatHex(mac.doFinal(request.body()));
      assertThat(signature).isEqualTo(expected);
      assertThat(Long.parseLong(timestamp)).isBetween(sendTime.getEpochSecond() - 1, sendTime.getEpochSecond() + 60);

      WebhookSignature verifier = WebhookSignature.withSecret("s3cret-for-tests");
      assertThat(verifier.verify(timestamp, signature, request.body(), Instant.now(), Duration.ofMinutes(5))).isTrue();
      byte[] tampered = request.body().clone();
      tampered[0] ^= 1;
      assertThat(verifier.verify(timestamp, signature, tampered, Instant.now(), Duration.ofMinutes(5))).isFalse();
      assertThat(WebhookSignature.withSecret("other").verify(timestamp, signature, request.body(), Instant.now(),
          Duration.ofMinutes(5))).isFalse();
      assertThat(verifier.verify(timestamp, signature, request.body(), Instant.now().plus(Duration.ofHours(1)),
          Duration.ofMinutes(5))).as("a stale timestamp is refused").isFalse();
    }
  }

  @Test
  void the_body_content_type_id_key_and_headers_arrive_as_sent() throws Exception {
    try (HttpTransport transport = transportTo("/ok", Clock.systemUTC())) {
      Message message = message();
      assertThat(deliver(transport, message)).isEqualTo(DeliveryOutcome.delivered());

      WebhookServer.Request request = server.next(WAIT);
      assertThat(request.body()).isEqualTo(message.payload());
      assertThat(request.header("Content-Type")).isEqualTo("application/json");
      assertThat(request.header(HttpTransport.MESSAGE_ID_HEADER)).isEqualTo(message.id().toString());
      assertThat(request.header(HttpTransport.ORDERING_KEY_HEADER)).isEqualTo("customer-7");
      assertThat(request.header("traceparent")).isEqualTo(message.headers().get("traceparent"));
    }
  }

  @Test
  void a_header_the_http_client_refuses_to_send_is_a_permanent_failure() throws Exception {
    try (HttpTransport transport = transportTo("/ok", Clock.systemUTC())) {
      Message message = message().toBuilder().withHeader("Host", "elsewhere.example").build();

      assertThat(deliver(transport, message)).isInstanceOf(DeliveryOutcome.Permanent.class);
    }
  }

  @Test
  void the_properties_form_builds_a_working_transport() throws Exception {
    try (HttpTransport transport = HttpTransport.fromProperties(Map.of(
        "endpoint.hook", server.uri("/ok").toString(),
        "signing-secret", "s3cret-for-tests",
        "signature-scheme", "outbox4j",
        "request-timeout", "4s",
        "connect-timeout", "PT2S",
        "http-version", "http_1_1"))) {
      assertThat(deliver(transport, message())).isEqualTo(DeliveryOutcome.delivered());
      assertThat(server.next(WAIT).header(HttpTransport.SIGNATURE_HEADER)).startsWith("sha256=");
      assertThat(transport.toString()).doesNotContain("s3cret-for-tests");
    }
  }

  @Test
  void the_properties_form_refuses_unknown_and_malformed_keys_without_showing_secrets() {
    assertThatThrownBy(() -> HttpTransport.fromProperties(Map.of("endpoint.hook", "http://127.0.0.1:1/x",
        "request-timout", "4s")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("request-timout");
    assertThatThrownBy(() -> HttpTransport.fromProperties(Map.of("endpoint.hook", "http://127.0.0.1:1/x",
        "request-timeout", "soon")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("request-timeout");
    assertThatThrownBy(() -> HttpTransport.fromProperties(Map.of("signing-secret", "hush")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("endpoint")
        .hasMessageNotContaining("hush");
    assertThatThrownBy(() -> HttpTransport.fromProperties(Map.of("endpoint.hook", "ftp://127.0.0.1/x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hook");
  }
}
