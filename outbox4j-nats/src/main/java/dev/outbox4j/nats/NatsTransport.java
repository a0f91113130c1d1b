package dev.outbox4j.nats;

import dev.outbox4j.Message;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.TlsSettings;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spi.TransportProperties;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Publishes messages to NATS JetStream and reports success only on the stream's publish ack (SPEC §5).
 *
 * <h2>Why it is built this way</h2>
 * <ul>
 *   <li><b>Asynchronous publish, one ack each.</b> {@code publishAsync} writes the message and returns a future for
 *       its {@link PublishAck}; the relay sends a whole batch before it waits, so the acks of a batch stream back
 *       while the rest is still being written, in about one round trip.
 *   <li><b>The message id is the {@value #MESSAGE_ID_HEADER} header.</b> JetStream drops a second publish with the same
 *       id inside the stream's duplicate window (default 2 minutes) and acks it as a duplicate. A retry after a lost
 *       ack, or a message replayed from a reconnect buffer after the relay already retried it, is then stored once.
 *       A duplicate ack counts as delivered: the stream holds the message.
 *   <li><b>"No responders" is looked into, not guessed.</b> The server answers 503 "no responders" at once when no
 *       stream listens on the subject — a configuration error no retry fixes — but also, briefly, while a clustered
 *       stream elects a leader. So on a 503 the transport asks JetStream which streams capture the subject: none is a
 *       permanent failure; one or more (or a failed lookup) is retryable. The lookup runs on the client's executor,
 *       never on the thread that completed the publish, so it cannot stall the client's dispatcher.
 *   <li><b>A bound on every answer, and nothing held past it.</b> {@link #maxAnswerTime()} is the ack timeout,
 *       counted from the call to {@link #deliver} (a connect made by that call uses up part of it). The client's own
 *       reconnecting is off, and so is its reconnect buffer: jnats would otherwise keep publishes made while
 *       disconnected, and those still queued when the connection dropped, and send them after reconnecting, however
 *       late. Instead a dropped connection is closed for good (its queue discarded) and the next delivery opens a
 *       fresh one. A publish whose ack does not come within the bound closes its connection too (a connection that
 *       says it is connected but gets nothing through, or a write the network stalls, must neither stall the outbox
 *       nor send the publish later). The message id is the second line of defence: a copy that still arrives within
 *       the stream's duplicate window after another copy was stored is dropped by the server.
 *   <li><b>Connection failures say the transport is unavailable.</b> Not connected, a dropped connection, a closed
 *       transport: the relay pauses instead of charging the entries attempts.
 *   <li><b>Connect lazily, fail fast.</b> The first delivery connects; after a failed attempt, deliveries fail at once
 *       (retryable) until the reconnect wait has passed.
 * </ul>
 *
 * <p>The destination is the subject (a mapping hook can change that); the message headers travel as NATS headers,
 * with {@code Content-Type} set to the message's content type. Thread-safe. Passwords and tokens are never logged or
 * shown by {@link #toString()}.
 */
public final class NatsTransport implements Transport {
  /** The JetStream header the server deduplicates on; carries the message id. */
  public static final String MESSAGE_ID_HEADER = "Nats-Msg-Id";
  /** Header carrying the content type. */
  public static final String CONTENT_TYPE_HEADER = "Content-Type";
  /** Default time to wait for a publish ack: 5 s, below the relay's delivery timeout (10 s). */
  public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(5);
  /** Default pause between reconnect attempts, and between failed first connects: 1 s. */
  public static final Duration DEFAULT_RECONNECT_WAIT = Duration.ofSeconds(1);
  /** Default connect timeout: 5 s. */
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  /** JetStream API error codes no retry can fix: message too large (10054), JetStream off for the account (10039). */
  private static final Set<Integer> PERMANENT_API_ERRORS = Set.of(10054, 10039);

  private static final System.Logger LOGGER = System.getLogger("dev.outbox4j.nats");

  private final List<String> servers;
  private final TlsMode tlsMode;
  private final Options options;
  private final NatsConnectErrors connectErrors = new NatsConnectErrors();
  private final Function<Message, String> subjects;
  private final Duration ackTimeout;
  private final Duration reconnectWait;
  private final Clock clock;

  private final ReentrantLock lock = new ReentrantLock();
  private volatile @Nullable Connected connected;
  // guarded by lock
  private @Nullable Instant nextConnectAttempt;
  private boolean closed;

  /** An open connection and its JetStream context. */
  private record Connected(Connection connection, JetStream jetStream) {}

  private NatsTransport(Builder builder) {
    this.servers = List.copyOf(builder.servers);
    this.subjects = builder.subjects;
    this.ackTimeout = builder.ackTimeout;
    this.reconnectWait = builder.reconnectWait;
    this.clock = builder.clock;
    Options.Builder options = Options.builder()
        .servers(servers.toArray(String[]::new))
        .connectionName(builder.connectionName)
        .connectionTimeout(builder.connectionTimeout)
        .reconnectWait(builder.reconnectWait)
        .maxReconnects(0) // the transport reconnects itself: the client would send what it queued, however late
        .reconnectBufferSize(0); // and queue nothing while disconnected
    if (builder.username != null && builder.password != null) {
      options.userInfo(builder.username.toCharArray(), builder.password.toCharArray());
    }
    if (builder.token != null) {
      options.token(builder.token.toCharArray());
    }
    NatsCredentials.apply(builder.nkeySeed, builder.credentials, options);
    NatsTls tls = NatsTls.of(servers, builder.tls, builder.insecureTrustAll);
    tls.apply(options);
    this.tlsMode = tls.mode();
    if (tlsMode == TlsMode.TRUSTS_EVERY_CERTIFICATE) {
      LOGGER.log(System.Logger.Level.WARNING, "the NATS transport trusts every server certificate ("
          + NatsTls.INSECURE_TRUST_ALL + "): anyone on the network path to " + servers.size()
          + " server(s) can read and change what it sends");
    }
    options.errorListener(connectErrors);
    this.options = options.build();
  }

  /** How this transport checks the servers' certificates. */
  public enum TlsMode {
    /** No TLS: {@code nats://} servers and no TLS settings. */
    OFF,
    /** The certificate chain is checked against the trusted authorities and must name the host connected to. */
    VERIFIED,
    /** The chain is checked, the host name is not ({@code tls.hostname-verification: false}). */
    WITHOUT_HOSTNAME_VERIFICATION,
    /** Every certificate is trusted ({@code tls.insecure-trust-all: true}): no protection against a forger. */
    TRUSTS_EVERY_CERTIFICATE
  }

  /**
   * For start-up checks and tools such as the relay's {@code doctor}.
   *
   * @return how this transport checks the servers' certificates
   */
  public TlsMode tlsMode() {
    return tlsMode;
  }

  /** @return the client options every connection of this transport is opened with (for tests) */
  Options options() {
    return options;
  }

  /** @return a builder with the defaults (server {@code nats://127.0.0.1:4222}); not thread-safe */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a transport from its properties form. Keys, all optional:
   * <ul>
   *   <li>{@code servers}: comma-separated {@code nats://host:port} URLs, default {@code nats://127.0.0.1:4222}
   *       (may hold credentials: never logged);
   *   <li>{@code username} with {@code password}, or {@code token}, or {@code nkey-seed} (an NKEY user seed,
   *       {@code SU...}), or {@code credentials} (the content of a {@code .creds} file: a user JWT and its seed;
   *       usually given as {@code credentials-file: /path/user.creds});
   *   <li>{@code tls.*}: TLS, see {@link TlsSettings#fromProperties} (trust store, client certificate, hostname
   *       verification). A {@code tls://} server without them is verified against the JVM's trusted authorities, host
   *       name included; {@code opentls://} is refused unless {@code tls.insecure-trust-all} is {@code true}, which
   *       trusts every certificate (and cannot be combined with the other {@code tls.*} keys);
   *   <li>{@code connection-name} (default {@code outbox4j-relay}), {@code connection-timeout} (5s),
   *       {@code reconnect-wait} (1s), {@code ack-timeout} (5s).
   * </ul>
   *
   * @param properties the properties, without the host's prefix
   * @return the transport
   * @throws IllegalArgumentException naming a key that is unknown or malformed
   */
  public static NatsTransport fromProperties(Map<String, String> properties) {
    TransportProperties props = TransportProperties.of("nats", properties);
    Builder builder = builder();
    props.string("servers").ifPresent(value -> {
      List<String> urls = new ArrayList<>();
      for (String url : value.split(",")) {
        if (!url.isBlank()) {
          urls.add(url.trim());
        }
      }
      builder.withServers(urls);
    });
    props.string("username").ifPresent(user -> builder.withUserInfo(user,
        props.string("password").orElseThrow(() ->
            new IllegalArgumentException("nats property 'password' is required with 'username'"))));
    props.string("password");
    props.string("token").ifPresent(builder::withToken);
    props.string("nkey-seed").ifPresent(builder::withNkeySeed);
    props.string("credentials").ifPresent(builder::withCredentials);
    props.bool(NatsTls.INSECURE_TRUST_ALL).ifPresent(builder::withInsecureTrustAll);
    TlsSettings.fromProperties(props).ifPresent(builder::withTls);
    props.string("connection-name").ifPresent(builder::withConnectionName);
    props.duration("connection-timeout").ifPresent(builder::withConnectionTimeout);
    props.duration("reconnect-wait").ifPresent(builder::withReconnectWait);
    props.duration("ack-timeout").ifPresent(builder::withAckTimeout);
    props.rejectUnknown();
    return builder.build();
  }

  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    return send(message, null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Written per the CloudEvents NATS binding (see {@link NatsCloudEventsBinding}): {@code ce-} headers and
   * {@code Content-Type}; {@code Nats-Msg-Id} stays the message id.
   */
  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message, CloudEvent event) {
    return send(message, event);
  }

  private CompletionStage<DeliveryOutcome> send(Message message, @Nullable CloudEvent event) {
    NatsMessage natsMessage;
    try {
      natsMessage = natsMessage(message, event);
    } catch (RuntimeException e) {
      return done(DeliveryOutcome.permanent("message cannot be expressed as a NATS message: " + e.getMessage()));
    }
    long started = System.nanoTime();
    Connected target;
    try {
      target = connect();
    } catch (IOException | RuntimeException e) {
      return done(DeliveryOutcome.unavailable("NATS unavailable (" + describeServers() + "): " + e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return done(DeliveryOutcome.unavailable("interrupted while connecting to NATS"));
    }
    Duration left = ackTimeout.minusNanos(System.nanoTime() - started);
    if (left.isNegative() || left.isZero()) {
      return done(DeliveryOutcome.unavailable("connecting to NATS took longer than the ack timeout " + ackTimeout));
    }
    PublishOptions publishOptions = PublishOptions.builder().messageId(message.id().toString()).build();
    CompletableFuture<PublishAck> ack;
    try {
      ack = target.jetStream().publishAsync(natsMessage, publishOptions);
    } catch (IllegalArgumentException e) {
      return done(DeliveryOutcome.permanent("NATS refused the message: " + e.getMessage()));
    } catch (RuntimeException e) {
      return done(DeliveryOutcome.unavailable("publish failed: " + e));
    }
    String subject = natsMessage.getSubject();
    Executor executor = target.connection().getOptions().getExecutor();
    return ack
        .thenApply(publishAck -> DeliveryOutcome.delivered())
        .exceptionallyCompose(error -> classify(error, subject, target, executor))
        .orTimeout(left.toNanos(), TimeUnit.NANOSECONDS)
        .exceptionally(error -> {
          abandon(target);
          return DeliveryOutcome.retryable("no publish ack within " + ackTimeout
              + "; the connection was closed so that nothing it still holds can be sent later");
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>The ack timeout, counted from the call to {@link #deliver}. A publish without an ack by then closes its
   * connection, and the client neither reconnects nor buffers on its own, so nothing it queued is sent afterwards.
   */
  @Override
  public Duration maxAnswerTime() {
    return ackTimeout;
  }

  /**
   * Closes a connection whose publish got no ack within the bound, so that nothing it queued can still be written:
   * the next delivery opens a fresh one. A client connection can also end up connected yet silent after a network
   * cut; a fresh connection is the remedy there too, and the message ids keep any publish that did get through from
   * being stored twice.
   */
  private void abandon(Connected target) {
    lock.lock();
    try {
      if (connected != target) {
        return; // already replaced
      }
      connected = null;
    } finally {
      lock.unlock();
    }
    Thread closer = new Thread(() -> {
      try {
        target.connection().close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        // it is being abandoned either way
      }
    }, "outbox4j-nats-close-abandoned");
    closer.setDaemon(true);
    closer.start();
  }

  private NatsMessage natsMessage(Message message, @Nullable CloudEvent event) {
    Headers headers = new Headers();
    message.headers().forEach(headers::add);
    headers.put(CONTENT_TYPE_HEADER, message.contentType());
    if (event != null) {
      NatsCloudEventsBinding.writeHeaders(headers, event);
    }
    String subject = Objects.requireNonNull(subjects.apply(message), "subject mapping returned null");
    return NatsMessage.builder().subject(subject).headers(headers)
        .data(event == null ? message.payload() : NatsCloudEventsBinding.data(message, event)).build();
  }

  private CompletionStage<DeliveryOutcome> classify(Throwable error, String subject, Connected target,
      Executor executor) {
    Throwable cause = error;
    while (cause.getCause() != null && !(cause instanceof JetStreamApiException) && !isNoResponders(cause)) {
      cause = cause.getCause();
    }
    if (cause instanceof JetStreamApiException api) {
      String reason = "JetStream refused the publish to '" + subject + "': " + api.getErrorDescription()
          + " [" + api.getApiErrorCode() + "]";
      return done(PERMANENT_API_ERRORS.contains(api.getApiErrorCode())
          ? DeliveryOutcome.permanent(reason) : DeliveryOutcome.retryable(reason));
    }
    if (isNoResponders(cause)) {
      return CompletableFuture.supplyAsync(() -> noResponders(subject, target), executor);
    }
    if (cause instanceof CancellationException) {
      abandon(target); // its connection closed (a cancelled ack): nothing it queued may be sent later
      return done(DeliveryOutcome.unavailable("connection closed before the publish ack for '" + subject + "': "
          + cause));
    }
    if (cause instanceof TimeoutException) {
      abandon(target); // the client gave up on the ack: nothing of it may be sent later
      return done(DeliveryOutcome.retryable("no publish ack for '" + subject + "': " + cause));
    }
    return done(DeliveryOutcome.retryable("publish to '" + subject + "' failed: " + cause));
  }

  private static boolean isNoResponders(Throwable error) {
    String text = error.getMessage();
    return text != null && (text.contains("503") || text.contains("No Responders"));
  }

  /** Runs off the client's dispatcher: the lookup is itself a request. */
  private DeliveryOutcome noResponders(String subject, Connected target) {
    try {
      List<String> streams = target.connection().jetStreamManagement().getStreamNames(subject);
      if (streams.isEmpty()) {
        return DeliveryOutcome.permanent("no JetStream stream captures subject '" + subject + "'");
      }
      return DeliveryOutcome.retryable("no responders for '" + subject + "' although stream(s) " + streams
          + " capture it (stream leader unavailable?)");
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      return DeliveryOutcome.retryable("no responders for '" + subject + "', and the stream lookup failed: " + e);
    }
  }

  private Connected connect() throws IOException, InterruptedException {
    Connected current = connected;
    if (current != null && current.connection().getStatus() != Connection.Status.CLOSED) {
      return current;
    }
    lock.lock();
    try {
      current = connected;
      if (current != null && current.connection().getStatus() != Connection.Status.CLOSED) {
        return current;
      }
      if (closed) {
        throw new IOException("transport is closed");
      }
      Instant now = clock.instant();
      if (nextConnectAttempt != null && now.isBefore(nextConnectAttempt)) {
        throw new IOException("not connected; next attempt after " + nextConnectAttempt);
      }
      connectErrors.clear();
      try {
        Connection connection = Nats.connect(options);
        JetStream jetStream = connection.jetStream(JetStreamOptions.builder().requestTimeout(ackTimeout).build());
        Connected opened = new Connected(connection, jetStream);
        connected = opened;
        nextConnectAttempt = null;
        return opened;
      } catch (IOException e) {
        nextConnectAttempt = now.plus(reconnectWait);
        throw new IOException(e.getMessage() + connectErrors.describe(), e);
      } catch (RuntimeException e) {
        nextConnectAttempt = now.plus(reconnectWait);
        throw e;
      }
    } finally {
      lock.unlock();
    }
  }

  private static CompletableFuture<DeliveryOutcome> done(DeliveryOutcome outcome) {
    return CompletableFuture.completedFuture(outcome);
  }

  private String describeServers() {
    List<String> shown = new ArrayList<>();
    for (String server : servers) {
      try {
        URI uri = URI.create(server);
        shown.add(uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort()));
      } catch (IllegalArgumentException e) {
        shown.add("(unparseable server URL)");
      }
    }
    return String.join(",", shown);
  }

  /** Closes the connection; acks still outstanding complete as retryable by timeout. Idempotent. */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      Connected current = connected;
      connected = null;
      if (current != null) {
        current.connection().close();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return "NatsTransport{servers=" + describeServers() + ", ackTimeout=" + ackTimeout + "}";
  }

  /**
   * Configures a {@link NatsTransport}. Not thread-safe; {@link #build()} copies the configuration into an immutable,
   * thread-safe transport (which connects on its first delivery).
   */
  public static final class Builder {
    private List<String> servers = List.of("nats://127.0.0.1:4222");
    private @Nullable String username;
    private @Nullable String password;
    private @Nullable String token;
    private @Nullable String nkeySeed;
    private @Nullable String credentials;
    private @Nullable TlsSettings tls;
    private boolean insecureTrustAll;
    private String connectionName = "outbox4j-relay";
    private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
    private Duration reconnectWait = DEFAULT_RECONNECT_WAIT;
    private Duration ackTimeout = DEFAULT_ACK_TIMEOUT;
    private Function<Message, String> subjects = Message::destination;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /**
     * @param urls the servers, {@code nats://host:port}; default {@code nats://127.0.0.1:4222}; never logged with
     *     their credentials
     * @return this builder
     */
    public Builder withServers(List<String> urls) {
      this.servers = List.copyOf(urls);
      return this;
    }

    /**
     * @param url one server, {@code nats://host:port}
     * @return this builder
     */
    public Builder withServer(String url) {
      return withServers(List.of(url));
    }

    /**
     * @param user the user name
     * @param secret the password; never logged
     * @return this builder
     */
    public Builder withUserInfo(String user, String secret) {
      this.username = Objects.requireNonNull(user, "username");
      this.password = Objects.requireNonNull(secret, "password");
      return this;
    }

    /**
     * @param secret an authentication token; never logged
     * @return this builder
     */
    public Builder withToken(String secret) {
      this.token = Objects.requireNonNull(secret, "token");
      return this;
    }

    /**
     * @param seed an NKEY user seed ({@code SU...}), signing the server's challenge; never logged
     * @return this builder
     */
    public Builder withNkeySeed(String seed) {
      this.nkeySeed = Objects.requireNonNull(seed, "nkeySeed");
      return this;
    }

    /**
     * @param creds the content of a {@code .creds} file (user JWT and NKEY seed, as {@code nsc} writes it); never
     *     logged
     * @return this builder
     */
    public Builder withCredentials(String creds) {
      this.credentials = Objects.requireNonNull(creds, "credentials");
      return this;
    }

    /**
     * @param trustAll {@code true} to trust every server certificate, forged ones included (a warning is logged at
     *     start); required for {@code opentls://} server URLs, which are refused otherwise; cannot be combined with
     *     {@link #withTls}; default {@code false}
     * @return this builder
     */
    public Builder withInsecureTrustAll(boolean trustAll) {
      this.insecureTrustAll = trustAll;
      return this;
    }

    /**
     * @param settings TLS to the servers; default none, except that a {@code tls://} server URL gets the default
     *     settings (the JVM's trusted authorities, host name verified)
     * @return this builder
     * @see TlsSettings
     */
    public Builder withTls(TlsSettings settings) {
      this.tls = Objects.requireNonNull(settings, "tls");
      return this;
    }

    /**
     * @param name shown in the server's monitoring; default {@code outbox4j-relay}
     * @return this builder
     */
    public Builder withConnectionName(String name) {
      this.connectionName = Objects.requireNonNull(name, "connectionName");
      return this;
    }

    /**
     * @param timeout how long one connect attempt may take; default 5 s
     * @return this builder
     */
    public Builder withConnectionTimeout(Duration timeout) {
      this.connectionTimeout = Objects.requireNonNull(timeout, "connectionTimeout");
      return this;
    }

    /**
     * @param wait after a failed connect, how long deliveries fail at once before the next attempt; default 1 s
     * @return this builder
     */
    public Builder withReconnectWait(Duration wait) {
      this.reconnectWait = Objects.requireNonNull(wait, "reconnectWait");
      return this;
    }

    /**
     * @param timeout the bound on every delivery ({@link NatsTransport#maxAnswerTime()}): a publish without an ack
     *     by then counts as a retryable failure and closes its connection; default 5 s. The relay's delivery timeout
     *     and lease must be at least this; keep it well below the stream's duplicate window so a retry is still
     *     deduplicated
     * @return this builder
     */
    public Builder withAckTimeout(Duration timeout) {
      this.ackTimeout = Objects.requireNonNull(timeout, "ackTimeout");
      return this;
    }

    /**
     * @param mapping decides each message's subject; default the destination. An exception it throws is a permanent
     *     failure of that message.
     * @return this builder
     */
    public Builder withSubjectMapping(Function<Message, String> mapping) {
      this.subjects = Objects.requireNonNull(mapping, "subjectMapping");
      return this;
    }

    /**
     * @param source the time for the reconnect delay after a failed first connect; default the UTC system clock
     * @return this builder
     */
    public Builder withClock(Clock source) {
      this.clock = Objects.requireNonNull(source, "clock");
      return this;
    }

    /**
     * @return the transport, not yet connected
     * @throws IllegalArgumentException naming the option out of range: no server, a non-positive timeout or wait,
     *     both a token and a user, an {@code opentls://} server without {@code tls.insecure-trust-all}
     */
    public NatsTransport build() {
      if (servers.isEmpty()) {
        throw new IllegalArgumentException("at least one server is required");
      }
      int kinds = (token != null ? 1 : 0) + (username != null ? 1 : 0) + (nkeySeed != null ? 1 : 0)
          + (credentials != null ? 1 : 0);
      if (kinds > 1) {
        throw new IllegalArgumentException(
            "give one of: a token, a user name and password, an NKEY seed, credentials; not several");
      }
      requirePositive("connectionTimeout", connectionTimeout);
      requirePositive("reconnectWait", reconnectWait);
      requirePositive("ackTimeout", ackTimeout);
      return new NatsTransport(this);
    }

    private static void requirePositive(String name, Duration value) {
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
    }
  }
}
