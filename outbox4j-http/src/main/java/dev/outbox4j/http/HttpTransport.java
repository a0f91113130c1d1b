package dev.outbox4j.http;

import dev.outbox4j.Message;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.TlsSettings;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spi.TransportProperties;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Delivers each message as an HTTP {@code POST} to a webhook endpoint (SPEC §5).
 *
 * <p>The destination is an endpoint alias, looked up in the configured alias → URI map; an unknown alias is a
 * permanent failure. The body is the payload, byte for byte, with the message's content type. Headers sent:
 * <ul>
 *   <li>{@value #MESSAGE_ID_HEADER}: the message id (receivers dedupe on it);
 *   <li>every message header under its own name ({@code traceparent} included);
 *   <li>{@value #ORDERING_KEY_HEADER}: the ordering key, when the message has one;
 *   <li>when signing keys are configured, by default the Standard Webhooks headers ({@link StandardWebhooks}):
 *       {@code webhook-id} (the message id), {@code webhook-timestamp} (the send time in Unix seconds) and
 *       {@code webhook-signature}; with {@link SignatureScheme#OUTBOX4J}, instead, {@value #TIMESTAMP_HEADER} and
 *       {@value #SIGNATURE_HEADER} (see {@link WebhookSignature}).
 * </ul>
 * A message header whose name is one of these, or {@code Content-Type}, is not sent: the transport's value wins.
 *
 * <p>Outcomes: 2xx is delivered; 408, 429, 5xx, timeouts and connection failures are retryable (connection failures
 * — refused, connect timeout, a TLS handshake refused, a connection lost before the response — and a 401 (the
 * credentials refused) as {@link DeliveryOutcome#unavailable}, so the relay pauses instead of charging attempts), with a
 * {@code Retry-After} header (seconds or HTTP-date) passed on as the requested delay (the relay caps it at its retry
 * policy's cap); 410 Gone is {@link DeliveryOutcome#gone} (the relay stops delivering to that destination until an
 * operator resumes it, as Standard Webhooks asks of a sender); any other status (other 4xx, and 1xx/3xx, since
 * redirects are not followed for a signed POST) is permanent, as is a header the HTTP client refuses to send. The
 * response body is discarded unread.
 *
 * <p>Requests are sent with {@link HttpClient#sendAsync}, at most {@link Builder#withMaxConcurrentRequests} (16 by
 * default) to one endpoint at a time, the others waiting their turn within their bound (see {@link RequestGate}); the
 * relay's in-flight bound limits the total. A request whose connection closed before any response (a receiver that
 * closes every connection after its answer, a pooled connection the receiver had closed meanwhile) is sent again, on
 * another connection and within the same bound (up to one more attempt than the endpoint's connections, so the last
 * opens a new one), before it counts as a failure; the receiver may then see the message twice, which delivery at least once allows (receivers dedupe on the message id).
 *
 * <p>The bound on every answer ({@link #maxAnswerTime()}) is the connect timeout plus the request timeout. The client
 * enforces both; in addition, a request still unanswered at the bound is cancelled, which aborts its exchange and
 * closes its connection, so the transport sends nothing of it afterwards (JDK 16+ cancels the exchange); and a body the
 * client asks for after the bound (the whole process stood still meanwhile) fails its request instead
 * ({@link BoundedBody}). A receiver
 * that goes on acting on a request after its client gave up is beyond any client's control: receivers should answer
 * within the request timeout. Thread-safe; the signing secret is never logged or shown by {@link #toString()}.
 */
public final class HttpTransport implements Transport {
  /** Header carrying the message id. */
  public static final String MESSAGE_ID_HEADER = "Outbox-Message-Id";
  /** Header carrying the send time, Unix seconds, signed with the body. */
  public static final String TIMESTAMP_HEADER = "Outbox-Timestamp";
  /** Header carrying {@code sha256=<hex HMAC>} of {@code timestamp + "." + body}. */
  public static final String SIGNATURE_HEADER = "Outbox-Signature";
  /** Header carrying the ordering key, when the message has one. */
  public static final String ORDERING_KEY_HEADER = "Outbox-Ordering-Key";
  /** Default request timeout: 5 s, below the relay's default delivery timeout (10 s) and lease (30 s). */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);
  /** Default connect timeout: 3 s. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(3);
  /** Default bound on the requests running at once to one endpoint: 16 (so at most 16 HTTP/1.1 connections). */
  public static final int DEFAULT_MAX_CONCURRENT_REQUESTS = 16;

  private static final Set<String> RESERVED = Set.of("content-type", MESSAGE_ID_HEADER.toLowerCase(Locale.ROOT),
      TIMESTAMP_HEADER.toLowerCase(Locale.ROOT), SIGNATURE_HEADER.toLowerCase(Locale.ROOT),
      ORDERING_KEY_HEADER.toLowerCase(Locale.ROOT), StandardWebhooks.ID_HEADER, StandardWebhooks.TIMESTAMP_HEADER,
      StandardWebhooks.SIGNATURE_HEADER);

  private final Map<String, URI> endpoints;
  private final @Nullable WebhookSignature signature;
  private final @Nullable StandardWebhooks standardWebhooks;
  private final Duration requestTimeout;
  private final Duration maxAnswerTime;
  private final Clock clock;
  private final HttpClient client;
  private final boolean ownsClient;
  private final EndpointCredentials credentials;
  private final Map<String, RequestGate> gates;
  private final int maxConcurrentRequests;

  private HttpTransport(Builder builder) {
    this.endpoints = Map.copyOf(builder.endpoints);
    this.maxConcurrentRequests = builder.maxConcurrentRequests;
    Map<String, RequestGate> gates = new LinkedHashMap<>();
    endpoints.keySet().forEach(alias -> gates.put(alias, new RequestGate(builder.maxConcurrentRequests)));
    this.gates = Map.copyOf(gates);
    this.signature = builder.scheme == SignatureScheme.OUTBOX4J && !builder.secrets.isEmpty()
        ? WebhookSignature.withSecret(builder.secrets.get(0)) : null;
    this.standardWebhooks = builder.scheme == SignatureScheme.STANDARD_WEBHOOKS
        && !(builder.secrets.isEmpty() && builder.ed25519Keys.isEmpty())
        ? StandardWebhooks.of(builder.secrets, builder.ed25519Keys) : null;
    this.requestTimeout = builder.requestTimeout;
    this.clock = builder.clock;
    this.credentials = EndpointCredentials.of(builder.authorization);
    if (builder.client != null) {
      this.client = builder.client;
      this.ownsClient = false;
      this.maxAnswerTime = builder.client.connectTimeout().orElse(builder.connectTimeout).plus(requestTimeout);
    } else {
      this.maxAnswerTime = builder.connectTimeout.plus(requestTimeout);
      HttpClient.Builder client = HttpClient.newBuilder()
          .version(builder.version)
          .connectTimeout(builder.connectTimeout)
          .followRedirects(HttpClient.Redirect.NEVER);
      if (builder.tls != null) {
        client.sslContext(builder.tls.sslContext());
      }
      this.client = client.build();
      this.ownsClient = true;
    }
  }

  /** @return the HTTP client requests go through (for tests) */
  HttpClient client() {
    return client;
  }

  /** @return a builder with the defaults; not thread-safe */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a transport from its properties form. Keys (all optional except at least one endpoint):
   * <ul>
   *   <li>{@code endpoint.<alias>}: the URI that destination {@code <alias>} posts to (http or https);
   *   <li>{@code auth.<alias>.bearer-token}, or {@code auth.<alias>.username} with {@code auth.<alias>.password}:
   *       credentials sent as the {@code Authorization} header to that endpoint (never logged);
   *   <li>{@code tls.*}: the trust store and client certificate for {@code https} endpoints, see
   *       {@link TlsSettings#fromProperties};
   *   <li>{@code signing-secret}: the HMAC-SHA256 secret; several, separated by commas, sign at once (Standard
   *       Webhooks only); without any signing key no signature header is sent;
   *   <li>{@code signing-ed25519-key}: Standard Webhooks {@code v1a} private keys ({@code whsk_} + base64), separated
   *       by commas;
   *   <li>{@code signature-scheme}: {@code standard-webhooks} (default) or {@code outbox4j};
   *   <li>{@code request-timeout}: default 5s; {@code connect-timeout}: default 3s;
   *   <li>{@code max-concurrent-requests}: the requests running at once to one endpoint, default
   *       {@value #DEFAULT_MAX_CONCURRENT_REQUESTS};
   *   <li>{@code http-version}: {@code HTTP_1_1} (default) or {@code HTTP_2}.
   * </ul>
   *
   * @param properties the properties, without the host's prefix
   * @return the transport
   * @throws IllegalArgumentException naming a key that is unknown, missing or malformed
   */
  public static HttpTransport fromProperties(Map<String, String> properties) {
    TransportProperties props = TransportProperties.of("http", properties);
    Builder builder = builder();
    props.withPrefix("endpoint.").forEach((alias, uri) -> {
      try {
        builder.withEndpoint(alias, URI.create(uri));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("http property 'endpoint." + alias + "' is not a valid URI", e);
      }
    });
    EndpointCredentials.fromProperties(props, builder.endpoints.keySet()).forEach(builder.authorization::put);
    TlsSettings.fromProperties(props).ifPresent(builder::withTls);
    props.string("signing-secret").ifPresent(secrets -> builder.withSigningSecrets(list(secrets)));
    props.string("signing-ed25519-key").ifPresent(keys -> builder.withEd25519SigningKeys(list(keys)));
    props.string("signature-scheme").ifPresent(scheme -> {
      switch (scheme.toLowerCase(Locale.ROOT)) {
        case "standard-webhooks" -> builder.withSignatureScheme(SignatureScheme.STANDARD_WEBHOOKS);
        case "outbox4j" -> builder.withSignatureScheme(SignatureScheme.OUTBOX4J);
        default -> throw new IllegalArgumentException(
            "http property 'signature-scheme' must be standard-webhooks or outbox4j, was '" + scheme + "'");
      }
    });
    props.duration("request-timeout").ifPresent(builder::withRequestTimeout);
    props.duration("connect-timeout").ifPresent(builder::withConnectTimeout);
    props.integer("max-concurrent-requests").ifPresent(builder::withMaxConcurrentRequests);
    props.string("http-version").ifPresent(version -> {
      try {
        builder.withHttpVersion(HttpClient.Version.valueOf(version.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("http property 'http-version' must be HTTP_1_1 or HTTP_2, was '"
            + version + "'", e);
      }
    });
    props.rejectUnknown();
    return builder.build();
  }

  private static List<String> list(String commaSeparated) {
    return Arrays.stream(commaSeparated.split(",")).map(String::strip).filter(part -> !part.isEmpty()).toList();
  }

  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    return send(message, null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Written per the CloudEvents HTTP binding (see {@link CloudEventsHttpBinding}); with a signing key, the signature
   * covers the body as sent (in structured mode, the JSON event). Message headers starting with {@code ce-} are not
   * sent under their own names: the binding writes those.
   */
  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message, CloudEvent event) {
    return send(message, event);
  }

  private CompletionStage<DeliveryOutcome> send(Message message, @Nullable CloudEvent event) {
    URI endpoint = endpoints.get(message.destination());
    if (endpoint == null) {
      return CompletableFuture.completedFuture(
          DeliveryOutcome.permanent("no HTTP endpoint configured for destination '" + message.destination() + "'"));
    }
    byte[] body = event == null ? message.payload() : CloudEventsHttpBinding.body(message, event);
    HttpRequest request;
    try {
      request = request(endpoint, message, new BoundedBody(body, System.nanoTime() + maxAnswerTime.toNanos()), body,
          event);
    } catch (IllegalArgumentException e) {
      return CompletableFuture.completedFuture(
          DeliveryOutcome.permanent("message cannot be sent over HTTP: " + e.getMessage()));
    }
    CompletableFuture<DeliveryOutcome> outcome = new CompletableFuture<DeliveryOutcome>()
        .completeOnTimeout(DeliveryOutcome.retryable("no response within " + maxAnswerTime
            + " (connect + request timeout); the request was cancelled"),
            maxAnswerTime.toNanos(), TimeUnit.NANOSECONDS);
    RequestGate gate = gates.get(message.destination());
    gate.submit(outcome, () -> attempt(request, endpoint, outcome, gate, 1));
    return outcome;
  }

  /**
   * Sends the request; a connection that closed before any response (a receiver that closes each connection after
   * answering, while the client had pooled it) gets another attempt on another connection, within the same bound: one
   * more than the connections the client can hold to the endpoint (each such attempt takes a closed one out of its
   * pool, so the last goes out on a new connection). Completes the outcome, or leaves it to its bound, and releases the gate once the exchange ended.
   */
  private void attempt(HttpRequest request, URI endpoint, CompletableFuture<DeliveryOutcome> outcome, RequestGate gate,
      int attempt) {
    CompletableFuture<HttpResponse<Void>> sending;
    try {
      sending = client.sendAsync(request, HttpResponse.BodyHandlers.discarding());
    } catch (RuntimeException e) {
      outcome.complete(classify(e, endpoint));
      gate.release();
      return;
    }
    outcome.whenComplete((done, error) -> sending.cancel(true)); // aborts an exchange still running; else no effect
    sending.whenComplete((response, error) -> {
      if (error != null && attempt <= maxConcurrentRequests && !outcome.isDone()
          && closedBeforeResponse(error)) {
        attempt(request, endpoint, outcome, gate, attempt + 1);
        return;
      }
      outcome.complete(error != null ? classify(error, endpoint) : classify(response));
      gate.release();
    });
  }

  /** @return whether the failure is a connection that ended before any response, not a refusal or a timeout */
  private static boolean closedBeforeResponse(Throwable error) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return cause instanceof IOException && !(cause instanceof ConnectException)
        && !(cause instanceof HttpTimeoutException) && !(cause instanceof javax.net.ssl.SSLException);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The connect timeout plus the request timeout (the given client's connect timeout when it has one); a request
   * still unanswered then is cancelled.
   */
  @Override
  public Duration maxAnswerTime() {
    return maxAnswerTime;
  }

  private HttpRequest request(URI endpoint, Message message, BoundedBody publisher, byte[] body,
      @Nullable CloudEvent event) {
    HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
        .timeout(requestTimeout)
        .POST(publisher)
        .header("Content-Type", event == null ? message.contentType() : CloudEventsHttpBinding.contentType(event))
        .header(MESSAGE_ID_HEADER, message.id().toString());
    message.orderingKey().ifPresent(key -> request.header(ORDERING_KEY_HEADER, key));
    message.headers().forEach((name, value) -> {
      if (!RESERVED.contains(name.toLowerCase(Locale.ROOT))
          && (event == null || !CloudEventsHttpBinding.isBindingHeader(name))) {
        request.header(name, value);
      }
    });
    credentials.authorization(message.destination()).ifPresent(value -> request.setHeader("Authorization", value));
    if (event != null) {
      CloudEventsHttpBinding.writeHeaders(request, event);
    }
    long seconds = clock.instant().getEpochSecond();
    if (signature != null) {
      String timestamp = Long.toString(seconds);
      request.header(TIMESTAMP_HEADER, timestamp);
      request.header(SIGNATURE_HEADER, signature.sign(timestamp, body));
    }
    if (standardWebhooks != null) {
      String id = message.id().toString();
      request.header(StandardWebhooks.ID_HEADER, id);
      request.header(StandardWebhooks.TIMESTAMP_HEADER, Long.toString(seconds));
      request.header(StandardWebhooks.SIGNATURE_HEADER, standardWebhooks.sign(id, seconds, body));
    }
    return request.build();
  }

  private DeliveryOutcome classify(HttpResponse<Void> response) {
    int status = response.statusCode();
    if (status >= 200 && status < 300) {
      return DeliveryOutcome.delivered();
    }
    String reason = "HTTP " + status + " from " + ShownUri.of(response.uri());
    if (status == 401) {
      // the endpoint refused our credentials: every message to it would fail alike, so this is an outage
      return DeliveryOutcome.unavailable(reason + " (credentials refused)");
    }
    if (status == 408 || status == 429 || status >= 500) {
      Optional<Duration> delay = response.headers().firstValue("Retry-After").flatMap(this::retryAfter);
      return delay.map(d -> DeliveryOutcome.retryableAfter(reason, d))
          .orElseGet(() -> DeliveryOutcome.retryable(reason));
    }
    if (status == 410) {
      return DeliveryOutcome.gone(reason + " (Gone)");
    }
    return DeliveryOutcome.permanent(reason);
  }

  /** A failure without a response; the client's text is scrubbed of the endpoint's query and user information. */
  private static DeliveryOutcome classify(Throwable error, URI endpoint) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    String text = ShownUri.scrub(String.valueOf(cause), endpoint);
    if (cause instanceof HttpConnectTimeoutException) {
      return DeliveryOutcome.unavailable("connect timed out: " + ShownUri.scrub(String.valueOf(cause.getMessage()),
          endpoint));
    }
    if (cause instanceof HttpTimeoutException) {
      return DeliveryOutcome.retryable("no response within the request timeout: "
          + ShownUri.scrub(String.valueOf(cause.getMessage()), endpoint));
    }
    if (cause instanceof ConnectException) {
      return DeliveryOutcome.unavailable("connection refused or unreachable: " + text);
    }
    if (cause instanceof IOException) {
      return DeliveryOutcome.unavailable("connection lost before a response: " + text);
    }
    return DeliveryOutcome.retryable("request failed: " + text);
  }

  /**
   * @param value a {@code Retry-After} value: whole seconds, or an HTTP-date (RFC 1123)
   * @return the delay it asks for (never negative), or empty when the value is malformed
   */
  Optional<Duration> retryAfter(String value) {
    String trimmed = value.trim();
    if (!trimmed.isEmpty() && trimmed.chars().allMatch(Character::isDigit)) {
      try {
        return Optional.of(Duration.ofSeconds(Long.parseLong(trimmed)));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }
    try {
      Instant at = ZonedDateTime.parse(trimmed, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration delay = Duration.between(clock.instant(), at);
      return Optional.of(delay.isNegative() ? Duration.ZERO : delay);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** Closes the HTTP client if this transport created it (Java 21+ only; on 17 its threads simply idle out). */
  @Override
  public void close() {
    if (ownsClient && client instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        // closing is best effort
      }
    }
  }

  @Override
  public String toString() {
    return "HttpTransport{endpoints=" + endpoints.keySet() + ", signed=" + (signature != null ? "outbox4j" : standardWebhooks != null ? "standard-webhooks" : "no")
        + ", requestTimeout=" + requestTimeout
        + ", maxConcurrentRequests=" + maxConcurrentRequests + "}";
  }

  /**
   * Configures an {@link HttpTransport}. Not thread-safe; {@link #build()} copies the configuration into an immutable,
   * thread-safe transport.
   */
  public static final class Builder {
    private final Map<String, URI> endpoints = new LinkedHashMap<>();
    private final List<String> secrets = new ArrayList<>();
    private final List<String> ed25519Keys = new ArrayList<>();
    private SignatureScheme scheme = SignatureScheme.STANDARD_WEBHOOKS;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private int maxConcurrentRequests = DEFAULT_MAX_CONCURRENT_REQUESTS;
    private HttpClient.Version version = HttpClient.Version.HTTP_1_1;
    private Clock clock = Clock.systemUTC();
    private @Nullable HttpClient client;
    private @Nullable TlsSettings tls;
    private final Map<String, String> authorization = new LinkedHashMap<>();

    private Builder() {}

    /**
     * @param settings the trust store and client certificate for {@code https} endpoints; default the JVM's
     *     authorities and no client certificate; ignored with {@link #withHttpClient}
     * @return this builder
     */
    public Builder withTls(TlsSettings settings) {
      this.tls = Objects.requireNonNull(settings, "tls");
      return this;
    }

    /**
     * @param alias an endpoint alias
     * @param token sent as {@code Authorization: Bearer <token>} to that endpoint; never logged
     * @return this builder
     */
    public Builder withBearerToken(String alias, String token) {
      authorization.put(Objects.requireNonNull(alias, "alias"), EndpointCredentials.bearer(token));
      return this;
    }

    /**
     * @param alias an endpoint alias
     * @param username the basic-authentication user (no {@code :})
     * @param password its password; never logged
     * @return this builder
     */
    public Builder withBasicAuth(String alias, String username, String password) {
      authorization.put(Objects.requireNonNull(alias, "alias"), EndpointCredentials.basic(username, password));
      return this;
    }

    /**
     * @param alias the destination name messages use; non-blank
     * @param uri where messages to that destination are posted; absolute {@code http} or {@code https}
     * @return this builder
     */
    public Builder withEndpoint(String alias, URI uri) {
      endpoints.put(Objects.requireNonNull(alias, "alias"), Objects.requireNonNull(uri, "uri"));
      return this;
    }

    /**
     * @param sharedSecret the HMAC-SHA256 signing secret shared with the receivers, replacing any configured before:
     *     under Standard Webhooks (the default scheme) {@code whsec_} + base64 of 24 to 64 bytes; under
     *     {@link SignatureScheme#OUTBOX4J} any non-empty text, whose UTF-8 bytes are the key. {@code null} (the default)
     *     removes the secrets
     * @return this builder
     */
    public Builder withSigningSecret(@Nullable String sharedSecret) {
      return withSigningSecrets(sharedSecret == null ? List.of() : List.of(sharedSecret));
    }

    /**
     * @param sharedSecrets the active Standard Webhooks {@code v1} secrets ({@code whsec_} + base64), replacing any
     *     configured before; every one signs each request, so a receiver holding any of them accepts it (rotation:
     *     add the new secret, then retire the old one by leaving it out). Empty (the default) signs with none
     * @return this builder
     */
    public Builder withSigningSecrets(List<String> sharedSecrets) {
      this.secrets.clear();
      sharedSecrets.forEach(secret -> this.secrets.add(Objects.requireNonNull(secret, "signingSecret")));
      return this;
    }

    /**
     * @param privateKeys the active Standard Webhooks {@code v1a} Ed25519 private keys ({@code whsk_} + base64 of the
     *     32-byte key), replacing any configured before; every one signs each request. Empty (the default) signs
     *     with none
     * @return this builder
     */
    public Builder withEd25519SigningKeys(List<String> privateKeys) {
      this.ed25519Keys.clear();
      privateKeys.forEach(key -> this.ed25519Keys.add(Objects.requireNonNull(key, "ed25519SigningKey")));
      return this;
    }

    /**
     * @param signatureScheme how requests are signed when keys are configured; default
     *     {@link SignatureScheme#STANDARD_WEBHOOKS}
     * @return this builder
     */
    public Builder withSignatureScheme(SignatureScheme signatureScheme) {
      this.scheme = Objects.requireNonNull(signatureScheme, "signatureScheme");
      return this;
    }

    /**
     * @param timeout how long one request may take until its response headers arrive; default 5 s. With the connect
     *     timeout it makes {@link HttpTransport#maxAnswerTime()}, which the relay's delivery timeout and lease must
     *     be at least.
     * @return this builder
     */
    public Builder withRequestTimeout(Duration timeout) {
      this.requestTimeout = Objects.requireNonNull(timeout, "requestTimeout");
      return this;
    }

    /**
     * @param timeout how long opening a connection may take; default 3 s; with {@link #withHttpClient}, the client's
     *     own connect timeout counts instead when it has one (this one bounds the answer otherwise)
     * @return this builder
     */
    public Builder withConnectTimeout(Duration timeout) {
      this.connectTimeout = Objects.requireNonNull(timeout, "connectTimeout");
      return this;
    }

    /**
     * @param count the requests that may run at once to one endpoint (alias); default
     *     {@value HttpTransport#DEFAULT_MAX_CONCURRENT_REQUESTS}. The others wait in order, each within its delivery's
     *     bound ({@link HttpTransport#maxAnswerTime()}, counted from the hand-over): one still waiting then is failed
     *     as retryable and never sent. Over HTTP/1.1 it bounds the connections the client opens to the endpoint.
     * @return this builder
     */
    public Builder withMaxConcurrentRequests(int count) {
      this.maxConcurrentRequests = count;
      return this;
    }

    /**
     * @param httpVersion the protocol version to ask for; default HTTP/1.1; ignored with {@link #withHttpClient}
     * @return this builder
     */
    public Builder withHttpVersion(HttpClient.Version httpVersion) {
      this.version = Objects.requireNonNull(httpVersion, "httpVersion");
      return this;
    }

    /**
     * @param source the time written into {@value #TIMESTAMP_HEADER} and used to turn a {@code Retry-After} date
     *     into a delay; default the UTC system clock
     * @return this builder
     */
    public Builder withClock(Clock source) {
      this.clock = Objects.requireNonNull(source, "clock");
      return this;
    }

    /**
     * @param httpClient a client to use instead of one built from this builder's settings (for TLS or proxy
     *     settings); it should not follow redirects. The transport does not close a client it was given.
     * @return this builder
     */
    public Builder withHttpClient(HttpClient httpClient) {
      this.client = Objects.requireNonNull(httpClient, "httpClient");
      return this;
    }

    /**
     * @return the transport
     * @throws IllegalArgumentException naming the option out of range: no endpoint, a blank alias, a URI that is not
     *     absolute http(s), an empty secret, a non-positive timeout
     */
    public HttpTransport build() {
      if (endpoints.isEmpty()) {
        throw new IllegalArgumentException("at least one endpoint is required");
      }
      endpoints.forEach((alias, uri) -> {
        if (alias.isBlank()) {
          throw new IllegalArgumentException("endpoint alias must not be blank");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!uri.isAbsolute() || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
          throw new IllegalArgumentException("endpoint '" + alias + "' must be an absolute http(s) URI with a host");
        }
      });
      authorization.keySet().forEach(alias -> {
        if (!endpoints.containsKey(alias)) {
          throw new IllegalArgumentException("credentials given for '" + alias + "', which is no endpoint alias");
        }
      });
      if (scheme == SignatureScheme.OUTBOX4J) {
        if (secrets.size() > 1 || !ed25519Keys.isEmpty()) {
          throw new IllegalArgumentException("signatureScheme OUTBOX4J signs with one signingSecret only, was "
              + secrets.size() + " secrets and " + ed25519Keys.size() + " Ed25519 keys");
        }
        if (!secrets.isEmpty() && secrets.get(0).isEmpty()) {
          throw new IllegalArgumentException("signingSecret must not be empty");
        }
      } else {
        validateKeys("signingSecret", secrets, List.of());
        validateKeys("ed25519SigningKey", List.of(), ed25519Keys);
      }
      requirePositive("requestTimeout", requestTimeout);
      requirePositive("connectTimeout", connectTimeout);
      if (maxConcurrentRequests < 1) {
        throw new IllegalArgumentException("maxConcurrentRequests must be positive, was " + maxConcurrentRequests);
      }
      return new HttpTransport(this);
    }

    private static void validateKeys(String option, List<String> secrets, List<String> privateKeys) {
      if (secrets.isEmpty() && privateKeys.isEmpty()) {
        return;
      }
      try {
        StandardWebhooks.of(secrets, privateKeys);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(option + ": " + e.getMessage()
            + " (Standard Webhooks; for the earlier outbox4j scheme set signatureScheme OUTBOX4J)", e);
      }
    }

    private static void requirePositive(String name, Duration value) {
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
    }
  }
}
