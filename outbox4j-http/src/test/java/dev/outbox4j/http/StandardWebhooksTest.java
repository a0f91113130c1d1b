package dev.outbox4j.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Standard Webhooks signing, checked by the reference verifier library ({@code com.standardwebhooks}) for {@code v1}
 * and by BouncyCastle's Ed25519 for {@code v1a}, against requests a real local server received.
 */
class StandardWebhooksTest {
  /** A valid {@code v1} secret (32 bytes) for tests in this package. */
  static final String SECRET = secret("outbox4j-standard-webhooks-test!");
  private static final String NEXT_SECRET = secret("outbox4j-the-secret-rotated-in!!");
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final WebhookServer server = new WebhookServer();

  @AfterEach
  void stopServer() {
    server.close();
  }

  private static String secret(String bytes) {
    return StandardWebhooks.SECRET_PREFIX
        + Base64.getEncoder().encodeToString(bytes.getBytes(StandardCharsets.US_ASCII));
  }

  private WebhookServer.Request deliverThrough(HttpTransport.Builder builder) throws Exception {
    Message message = Message.builder().withDestination("hook").withOrderingKey("customer-7")
        .withPayload("{\"total\":12}").withContentType("application/json").build();
    try (HttpTransport transport = builder.withEndpoint("hook", server.uri("/ok")).build()) {
      DeliveryOutcome outcome = transport.deliver(message).toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertThat(outcome).isEqualTo(DeliveryOutcome.delivered());
    }
    WebhookServer.Request request = server.next(WAIT);
    assertThat(request.header(HttpTransport.MESSAGE_ID_HEADER)).isEqualTo(message.id().toString());
    if (request.headers().containsKey(StandardWebhooks.SIGNATURE_HEADER)) {
      assertThat(request.header(StandardWebhooks.ID_HEADER)).isEqualTo(message.id().toString());
    }
    return request;
  }

  private static Map<String, List<String>> headers(WebhookServer.Request request) {
    Map<String, List<String>> headers = new HashMap<>();
    request.headers().forEach((name, value) -> headers.put(name, List.of(value)));
    return headers;
  }

  private static void verify(String secret, WebhookServer.Request request) throws Exception {
    new Webhook(secret).verify(new String(request.body(), StandardCharsets.UTF_8), headers(request));
  }

  @Test
  void the_reference_library_verifies_a_v1_signed_delivery_with_a_timestamp_in_seconds() throws Exception {
    WebhookServer.Request request = deliverThrough(HttpTransport.builder().withSigningSecret(SECRET));

    assertThatCode(() -> verify(SECRET, request)).doesNotThrowAnyException();
    long timestamp = Long.parseLong(request.header(StandardWebhooks.TIMESTAMP_HEADER));
    assertThat(Duration.between(Instant.ofEpochSecond(timestamp), Instant.now()).abs())
        .isLessThan(Duration.ofMinutes(1));
    assertThat(request.header(StandardWebhooks.SIGNATURE_HEADER)).startsWith("v1,");
    assertThat(request.headers()).doesNotContainKeys("outbox-signature", "outbox-timestamp");
  }

  @Test
  void a_tampered_body_or_timestamp_or_another_secret_is_refused_by_the_reference_library() throws Exception {
    WebhookServer.Request request = deliverThrough(HttpTransport.builder().withSigningSecret(SECRET));

    byte[] body = request.body().clone();
    body[2] = (byte) 'T';
    WebhookServer.Request tamperedBody = new WebhookServer.Request(request.path(), request.headers(), body);
    Map<String, String> shifted = new HashMap<>(request.headers());
    shifted.put(StandardWebhooks.TIMESTAMP_HEADER,
        Long.toString(Long.parseLong(request.header(StandardWebhooks.TIMESTAMP_HEADER)) - 1));
    WebhookServer.Request tamperedTime = new WebhookServer.Request(request.path(), shifted, request.body());

    assertThatThrownBy(() -> verify(SECRET, tamperedBody)).isInstanceOf(WebhookVerificationException.class);
    assertThatThrownBy(() -> verify(SECRET, tamperedTime)).isInstanceOf(WebhookVerificationException.class);
    assertThatThrownBy(() -> verify(NEXT_SECRET, request)).isInstanceOf(WebhookVerificationException.class);
  }

  @Test
  void during_a_rotation_both_secrets_sign_and_a_retired_secret_no_longer_verifies() throws Exception {
    WebhookServer.Request rotating = deliverThrough(
        HttpTransport.builder().withSigningSecrets(List.of(SECRET, NEXT_SECRET)));

    assertThat(rotating.header(StandardWebhooks.SIGNATURE_HEADER).split(" ")).hasSize(2);
    assertThatCode(() -> verify(SECRET, rotating)).doesNotThrowAnyException();
    assertThatCode(() -> verify(NEXT_SECRET, rotating)).doesNotThrowAnyException();

    WebhookServer.Request retired = deliverThrough(HttpTransport.builder().withSigningSecrets(List.of(NEXT_SECRET)));

    assertThatCode(() -> verify(NEXT_SECRET, retired)).doesNotThrowAnyException();
    assertThatThrownBy(() -> verify(SECRET, retired)).isInstanceOf(WebhookVerificationException.class);
  }

  @Test
  void a_v1a_signature_verifies_with_an_independent_ed25519_and_fails_for_a_tampered_body() throws Exception {
    byte[] raw = new byte[32];
    new SecureRandom().nextBytes(raw);
    Ed25519PublicKeyParameters publicKey = new Ed25519PrivateKeyParameters(raw, 0).generatePublicKey();
    String key = StandardWebhooks.PRIVATE_KEY_PREFIX + Base64.getEncoder().encodeToString(raw);

    WebhookServer.Request request = deliverThrough(HttpTransport.builder()
        .withSigningSecret(SECRET).withEd25519SigningKeys(List.of(key)));

    List<String> signatures = Arrays.asList(request.header(StandardWebhooks.SIGNATURE_HEADER).split(" "));
    assertThat(signatures).hasSize(2).anyMatch(s -> s.startsWith("v1,")).anyMatch(s -> s.startsWith("v1a,"));
    byte[] v1a = signatures.stream().filter(s -> s.startsWith("v1a,"))
        .map(s -> Base64.getDecoder().decode(s.substring(4))).findFirst().orElseThrow();
    assertThat(ed25519Verifies(publicKey, request, request.body(), v1a)).isTrue();
    byte[] tampered = request.body().clone();
    tampered[0] = (byte) '[';
    assertThat(ed25519Verifies(publicKey, request, tampered, v1a)).isFalse();
    assertThatCode(() -> verify(SECRET, request)).as("v1 still verifies beside v1a").doesNotThrowAnyException();
  }

  private static boolean ed25519Verifies(Ed25519PublicKeyParameters publicKey, WebhookServer.Request request,
      byte[] body, byte[] signature) {
    byte[] prefix = (request.header(StandardWebhooks.ID_HEADER) + "." + request.header(
        StandardWebhooks.TIMESTAMP_HEADER) + ".").getBytes(StandardCharsets.UTF_8);
    Ed25519Signer verifier = new Ed25519Signer();
    verifier.init(false, publicKey);
    verifier.update(prefix, 0, prefix.length);
    verifier.update(body, 0, body.length);
    return verifier.verifySignature(signature);
  }

  @Test
  void without_a_key_no_signature_header_is_sent() throws Exception {
    WebhookServer.Request request = deliverThrough(HttpTransport.builder());

    assertThat(request.headers()).doesNotContainKeys(StandardWebhooks.SIGNATURE_HEADER,
        StandardWebhooks.TIMESTAMP_HEADER, "outbox-signature");
  }

  @Test
  void the_properties_form_takes_several_secrets_and_ed25519_keys() throws Exception {
    String key = StandardWebhooks.PRIVATE_KEY_PREFIX + Base64.getEncoder().encodeToString(new byte[32]);
    try (HttpTransport transport = HttpTransport.fromProperties(Map.of("endpoint.hook", server.uri("/ok").toString(),
        "signing-secret", SECRET + " , " + NEXT_SECRET, "signing-ed25519-key", key))) {
      assertThat(transport.deliver(Message.builder().withDestination("hook").withPayload("{}").build())
          .toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo(DeliveryOutcome.delivered());
      assertThat(transport.toString()).doesNotContain(SECRET.substring(6), key.substring(5));
    }
    WebhookServer.Request request = server.next(WAIT);
    assertThat(request.header(StandardWebhooks.SIGNATURE_HEADER).split(" ")).hasSize(3);
    assertThatCode(() -> verify(NEXT_SECRET, request)).doesNotThrowAnyException();
  }

  @Test
  void a_key_that_is_not_standard_webhooks_is_refused_naming_the_option_without_showing_it() {
    Map<String, Runnable> builds = Map.of(
        "signingSecret", () -> HttpTransport.builder().withEndpoint("hook", server.uri("/ok"))
            .withSigningSecret("plain text secret!").build(),
        "signingSecret: secret #2 must decode to 24 to 64 bytes, was 5", () -> HttpTransport.builder()
            .withEndpoint("hook", server.uri("/ok"))
            .withSigningSecrets(List.of(SECRET, StandardWebhooks.SECRET_PREFIX + "c2hvcnQ=")).build(),
        "ed25519SigningKey: Ed25519 key #1 must decode to 32 bytes", () -> HttpTransport.builder()
            .withEndpoint("hook", server.uri("/ok")).withEd25519SigningKeys(List.of("whsk_c2hvcnQ=")).build());
    builds.forEach((expected, build) -> assertThatThrownBy(build::run).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(expected).hasMessageNotContaining("c2hvcnQ").hasMessageNotContaining("plain"));
    assertThatThrownBy(() -> HttpTransport.builder().withEndpoint("hook", server.uri("/ok"))
        .withSignatureScheme(SignatureScheme.OUTBOX4J).withSigningSecrets(List.of("a", "b")).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("OUTBOX4J");
    assertThatThrownBy(() -> HttpTransport.fromProperties(Map.of("endpoint.hook", "http://127.0.0.1:1/x",
        "signature-scheme", "hmac")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("signature-scheme");
  }
}
