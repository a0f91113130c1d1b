package dev.outbox4j.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spi.TransportProperties;
import java.io.IOException;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Publishes messages to RabbitMQ with publisher confirms (SPEC §5).
 *
 * <h2>Why it is built this way</h2>
 * <ul>
 *   <li><b>One confirm-mode channel, asynchronous confirms.</b> Each publish records its delivery tag (the channel's
 *       next publish sequence number) with a future; the broker's {@code basic.ack}/{@code basic.nack} complete the
 *       futures, one tag or, with {@code multiple}, every tag up to it. So a relay batch is written to the socket at
 *       once and confirmed in a few frames, not one round trip per message. Channels are not safe for concurrent
 *       publishing (the tag read and the publish must be atomic), so publishing holds a lock; it only writes to a
 *       buffer, so the lock is short.
 *   <li><b>Mandatory, and a return is permanent.</b> An unroutable message would otherwise be acked and silently
 *       dropped. RabbitMQ sends {@code basic.return} before the {@code basic.ack} of the same message, on the same
 *       channel, so the return is matched (by the AMQP message-id, which is the outbox message id) to the outstanding
 *       publish and its ack then reports a permanent failure.
 *   <li><b>A missing exchange is checked, not published into.</b> Publishing to an exchange that does not exist
 *       closes the channel (404) and fails every publish in flight on it. The first publish to an exchange therefore
 *       checks it with a passive declare on a throw-away channel: missing is permanent, present is remembered.
 *   <li><b>Failures of the connection are retryable.</b> Automatic connection recovery is on. When the channel shuts
 *       down (connection lost, or a channel error), every outstanding publish fails as retryable at once — its
 *       confirm can no longer arrive — and the channel is abandoned; the next delivery opens a fresh one as soon as the
 *       connection is open again. A dead channel's late confirms can thus never complete a newer publish's future.
 *   <li><b>Connect lazily, fail fast.</b> The first connection is made by the first delivery, so a relay can start
 *       while the broker is down. After a failed attempt, deliveries fail at once (retryable) until the reconnect
 *       delay has passed, instead of each waiting out a connect timeout.
 * </ul>
 *
 * <p>Each message is published persistent (delivery mode 2), with the message id as the AMQP {@code message-id}
 * property, the content type as {@code content-type}, the message headers as AMQP headers (string values) and the
 * write-independent send time as {@code timestamp}. The destination maps to an exchange and routing key through
 * {@link AmqpAddress#parse} unless a mapping is configured.
 *
 * <p>Thread-safe. The password is never logged or shown by {@link #toString()}.
 */
public final class RabbitMqTransport implements Transport {
  private static final System.Logger LOG = System.getLogger(RabbitMqTransport.class.getName());
  private static final int NOT_FOUND = 404;

  /** Default time to wait for a publisher confirm: 5 s, below the relay's delivery timeout (10 s). */
  public static final Duration DEFAULT_CONFIRM_TIMEOUT = Duration.ofSeconds(5);
  /** Default interval between connection recovery attempts, and between failed first connects: 1 s. */
  public static final Duration DEFAULT_RECOVERY_INTERVAL = Duration.ofSeconds(1);
  /** Default TCP connect and AMQP handshake timeout: 5 s. */
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  private final ConnectionFactory factory;
  private final String connectionName;
  private final String endpointDescription;
  private final Function<Message, AmqpAddress> addressing;
  private final Duration confirmTimeout;
  private final Duration recoveryInterval;
  private final Clock clock;

  private final ReentrantLock lock = new ReentrantLock();
  private final Set<String> knownExchanges = ConcurrentHashMap.newKeySet();
  // guarded by lock
  private @Nullable Connection connection;
  private @Nullable PublishChannel channel;
  private @Nullable Instant nextConnectAttempt;
  private boolean closed;

  private RabbitMqTransport(Builder builder) {
    this.factory = builder.factory();
    this.connectionName = builder.connectionName;
    this.endpointDescription = factory.getHost() + ":" + factory.getPort() + factory.getVirtualHost()
        + " as " + factory.getUsername();
    this.addressing = builder.addressing;
    this.confirmTimeout = builder.confirmTimeout;
    this.recoveryInterval = builder.recoveryInterval;
    this.clock = builder.clock;
  }

  /** @return a builder with the defaults (guest@127.0.0.1:5672, virtual host {@code /}); not thread-safe */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a transport from its properties form. Keys, all optional:
   * <ul>
   *   <li>{@code uri}: {@code amqp://user:password@host:port/vhost}, applied first (it holds a secret: never logged);
   *   <li>{@code host} (default 127.0.0.1), {@code port} (5672), {@code virtual-host} ({@code /}),
   *       {@code username} ({@code guest}), {@code password} ({@code guest});
   *   <li>{@code connection-name} (default {@code outbox4j-relay}), {@code connection-timeout} (5s),
   *       {@code requested-heartbeat} (60s), {@code confirm-timeout} (5s), {@code recovery-interval} (1s).
   * </ul>
   *
   * @param properties the properties, without the host's prefix
   * @return the transport
   * @throws IllegalArgumentException naming a key that is unknown or malformed
   */
  public static RabbitMqTransport fromProperties(Map<String, String> properties) {
    TransportProperties props = TransportProperties.of("rabbitmq", properties);
    Builder builder = builder();
    props.string("uri").ifPresent(builder::withUri);
    props.string("host").ifPresent(builder::withHost);
    props.integer("port").ifPresent(builder::withPort);
    props.string("virtual-host").ifPresent(builder::withVirtualHost);
    props.string("username").ifPresent(builder::withUsername);
    props.string("password").ifPresent(builder::withPassword);
    props.string("connection-name").ifPresent(builder::withConnectionName);
    props.duration("connection-timeout").ifPresent(builder::withConnectionTimeout);
    props.duration("requested-heartbeat").ifPresent(builder::withRequestedHeartbeat);
    props.duration("confirm-timeout").ifPresent(builder::withConfirmTimeout);
    props.duration("recovery-interval").ifPresent(builder::withRecoveryInterval);
    props.rejectUnknown();
    return builder.build();
  }

  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    AmqpAddress address;
    try {
      address = Objects.requireNonNull(addressing.apply(message), "address mapping returned null");
    } catch (RuntimeException e) {
      return done(DeliveryOutcome.permanent("destination '" + message.destination() + "' maps to no address: " + e));
    }
    String messageId = message.id().toString();
    AMQP.BasicProperties properties;
    try {
      properties = properties(message, messageId);
    } catch (RuntimeException e) {
      return done(DeliveryOutcome.permanent("message cannot be expressed as AMQP properties: " + e.getMessage()));
    }
    byte[] body = message.payload();
    Pending pending = new Pending(messageId);
    lock.lock();
    try {
      if (closed) {
        return done(DeliveryOutcome.retryable("transport is closed"));
      }
      Connection open = openConnection();
      DeliveryOutcome refusal = checkExchange(open, address.exchange());
      if (refusal != null) {
        return done(refusal);
      }
      PublishChannel publisher = openChannel(open);
      long tag = publisher.channel.getNextPublishSeqNo();
      publisher.track(tag, pending);
      try {
        publisher.channel.basicPublish(address.exchange(), address.routingKey(), true, properties, body);
      } catch (IOException | AlreadyClosedException e) {
        publisher.forget(tag, pending);
        return done(DeliveryOutcome.retryable("publish to " + address + " failed: " + e));
      }
      pending.future.whenComplete((outcome, error) -> publisher.forget(tag, pending));
    } catch (IOException | TimeoutException | AlreadyClosedException e) {
      return done(DeliveryOutcome.retryable("RabbitMQ unavailable (" + endpointDescription + "): " + e));
    } finally {
      lock.unlock();
    }
    return pending.future.completeOnTimeout(
        DeliveryOutcome.retryable("no publisher confirm within " + confirmTimeout), confirmTimeout.toNanos(),
        TimeUnit.NANOSECONDS);
  }

  private AMQP.BasicProperties properties(Message message, String messageId) {
    Map<String, Object> headers = new HashMap<>(message.headers());
    return new AMQP.BasicProperties.Builder()
        .messageId(messageId)
        .contentType(message.contentType())
        .deliveryMode(2)
        .headers(headers)
        .timestamp(new Date(clock.millis()))
        .build();
  }

  private Connection openConnection() throws IOException, TimeoutException {
    Connection current = connection;
    if (current != null) {
      if (!current.isOpen()) {
        throw new IOException("connection lost; automatic recovery retries every " + recoveryInterval);
      }
      return current;
    }
    Instant now = clock.instant();
    if (nextConnectAttempt != null && now.isBefore(nextConnectAttempt)) {
      throw new IOException("not connected; next attempt after " + nextConnectAttempt);
    }
    try {
      Connection created = factory.newConnection(connectionName);
      connection = created;
      nextConnectAttempt = null;
      return created;
    } catch (IOException | TimeoutException e) {
      nextConnectAttempt = now.plus(recoveryInterval);
      throw e;
    } catch (RuntimeException e) {
      nextConnectAttempt = now.plus(recoveryInterval);
      throw new IOException(e);
    }
  }

  /** @return a permanent refusal when the exchange does not exist, {@code null} when it does */
  private @Nullable DeliveryOutcome checkExchange(Connection open, String exchange) throws IOException {
    if (exchange.isEmpty() || knownExchanges.contains(exchange)) {
      return null;
    }
    Channel probe = open.createChannel();
    try {
      probe.exchangeDeclarePassive(exchange);
      knownExchanges.add(exchange);
      return null;
    } catch (IOException e) {
      if (e.getCause() instanceof ShutdownSignalException signal && replyCode(signal) == NOT_FOUND) {
        return DeliveryOutcome.permanent("exchange '" + exchange + "' does not exist");
      }
      throw e;
    } finally {
      abortQuietly(probe);
    }
  }

  private PublishChannel openChannel(Connection open) throws IOException {
    PublishChannel current = channel;
    if (current != null && current.channel.isOpen()) {
      return current;
    }
    if (current != null) {
      abortQuietly(current.channel); // abandoned: a fresh channel restarts the delivery tags cleanly
    }
    Channel created = open.createChannel();
    created.confirmSelect();
    PublishChannel publisher = new PublishChannel(created);
    created.addConfirmListener(publisher);
    created.addReturnListener(publisher);
    created.addShutdownListener(publisher::shutdown);
    channel = publisher;
    return publisher;
  }

  private static int replyCode(ShutdownSignalException signal) {
    Object reason = signal.getReason();
    if (reason instanceof AMQP.Channel.Close close) {
      return close.getReplyCode();
    }
    if (reason instanceof AMQP.Connection.Close close) {
      return close.getReplyCode();
    }
    return -1;
  }

  private static void abortQuietly(Channel target) {
    try {
      target.abort();
    } catch (IOException | RuntimeException e) {
      // already closed: nothing to release
    }
  }

  private static CompletableFuture<DeliveryOutcome> done(DeliveryOutcome outcome) {
    return CompletableFuture.completedFuture(outcome);
  }

  /** Closes the channel and the connection; outstanding publishes fail as retryable. Idempotent. */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      PublishChannel publisher = channel;
      channel = null;
      if (publisher != null) {
        publisher.failAll("transport closed before the broker confirmed");
        abortQuietly(publisher.channel);
      }
      Connection current = connection;
      connection = null;
      if (current != null) {
        current.abort(2_000);
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return "RabbitMqTransport{" + endpointDescription + ", confirmTimeout=" + confirmTimeout + "}";
  }

  /** One publish awaiting its confirm. */
  private static final class Pending {
    final String messageId;
    final CompletableFuture<DeliveryOutcome> future = new CompletableFuture<>();
    volatile @Nullable String returnedBecause;

    Pending(String messageId) {
      this.messageId = messageId;
    }
  }

  /**
   * A confirm-mode channel and what is outstanding on it. Listener callbacks arrive on the connection's I/O thread,
   * in the order the broker sent them (a return before its ack).
   */
  private final class PublishChannel implements ConfirmListener, ReturnListener {
    final Channel channel;
    final ConcurrentNavigableMap<Long, Pending> outstanding = new ConcurrentSkipListMap<>();
    final Map<String, Pending> byMessageId = new ConcurrentHashMap<>();

    PublishChannel(Channel channel) {
      this.channel = channel;
    }

    void track(long tag, Pending pending) {
      outstanding.put(tag, pending);
      byMessageId.put(pending.messageId, pending);
    }

    void forget(long tag, Pending pending) {
      outstanding.remove(tag, pending);
      byMessageId.remove(pending.messageId, pending);
    }

    @Override
    public void handleAck(long deliveryTag, boolean multiple) {
      settle(deliveryTag, multiple, null);
    }

    @Override
    public void handleNack(long deliveryTag, boolean multiple) {
      settle(deliveryTag, multiple, "broker nacked the publish (it could not take responsibility for it)");
    }

    private void settle(long deliveryTag, boolean multiple, @Nullable String nackReason) {
      Map<Long, Pending> settled = multiple ? outstanding.headMap(deliveryTag, true) : null;
      if (settled != null) {
        for (Map.Entry<Long, Pending> entry : settled.entrySet()) {
          complete(entry.getValue(), nackReason);
        }
        settled.clear();
      } else {
        Pending pending = outstanding.remove(deliveryTag);
        if (pending != null) {
          complete(pending, nackReason);
        }
      }
    }

    private void complete(Pending pending, @Nullable String nackReason) {
      String returned = pending.returnedBecause;
      if (returned != null) {
        pending.future.complete(DeliveryOutcome.permanent(returned));
      } else if (nackReason != null) {
        pending.future.complete(DeliveryOutcome.retryable(nackReason));
      } else {
        pending.future.complete(DeliveryOutcome.delivered());
      }
    }

    @Override
    public void handleReturn(int replyCode, String replyText, String exchange, String routingKey,
        AMQP.BasicProperties properties, byte[] body) {
      String messageId = properties.getMessageId();
      Pending pending = messageId == null ? null : byMessageId.get(messageId);
      if (pending != null) {
        pending.returnedBecause = "returned unroutable by the broker: " + replyCode + " " + replyText
            + " (exchange '" + exchange + "', routing key '" + routingKey + "')";
      }
    }

    void shutdown(ShutdownSignalException cause) {
      if (!cause.isHardError() && replyCode(cause) == NOT_FOUND) {
        knownExchanges.clear(); // an exchange we believed in is gone: check again before the next publish
      }
      String reason = cause.isInitiatedByApplication()
          ? "channel closed before the broker confirmed"
          : "channel shut down before the broker confirmed: " + cause.getMessage();
      failAll(reason);
      LOG.log(System.Logger.Level.DEBUG, "RabbitMQ publish channel shut down: {0}", cause.getMessage());
    }

    void failAll(String reason) {
      for (Pending pending : outstanding.values()) {
        pending.future.complete(DeliveryOutcome.retryable(reason));
      }
      outstanding.clear();
      byMessageId.clear();
    }
  }

  /**
   * Configures a {@link RabbitMqTransport}. Not thread-safe; {@link #build()} copies the configuration into an
   * immutable, thread-safe transport (which connects on its first delivery).
   */
  public static final class Builder {
    private @Nullable String uri;
    private @Nullable String host;
    private @Nullable Integer port;
    private @Nullable String virtualHost;
    private @Nullable String username;
    private @Nullable String password;
    private String connectionName = "outbox4j-relay";
    private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
    private Duration requestedHeartbeat = Duration.ofSeconds(60);
    private Duration confirmTimeout = DEFAULT_CONFIRM_TIMEOUT;
    private Duration recoveryInterval = DEFAULT_RECOVERY_INTERVAL;
    private Function<Message, AmqpAddress> addressing = message -> AmqpAddress.parse(message.destination());
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /**
     * @param amqpUri {@code amqp://user:password@host:port/vhost}; applied before the individual settings, which
     *     override it; holds a secret and is never logged
     * @return this builder
     */
    public Builder withUri(String amqpUri) {
      this.uri = Objects.requireNonNull(amqpUri, "uri");
      return this;
    }

    /**
     * @param brokerHost the broker's host; default {@code 127.0.0.1}
     * @return this builder
     */
    public Builder withHost(String brokerHost) {
      this.host = Objects.requireNonNull(brokerHost, "host");
      return this;
    }

    /**
     * @param brokerPort the broker's AMQP port; default 5672
     * @return this builder
     */
    public Builder withPort(int brokerPort) {
      this.port = brokerPort;
      return this;
    }

    /**
     * @param vhost the virtual host; default {@code /}
     * @return this builder
     */
    public Builder withVirtualHost(String vhost) {
      this.virtualHost = Objects.requireNonNull(vhost, "virtualHost");
      return this;
    }

    /**
     * @param user the user name; default {@code guest}
     * @return this builder
     */
    public Builder withUsername(String user) {
      this.username = Objects.requireNonNull(user, "username");
      return this;
    }

    /**
     * @param secret the password; default {@code guest}; never logged
     * @return this builder
     */
    public Builder withPassword(String secret) {
      this.password = Objects.requireNonNull(secret, "password");
      return this;
    }

    /**
     * @param name shown in the broker's management UI; default {@code outbox4j-relay}
     * @return this builder
     */
    public Builder withConnectionName(String name) {
      this.connectionName = Objects.requireNonNull(name, "connectionName");
      return this;
    }

    /**
     * @param timeout TCP connect and AMQP handshake timeout; default 5 s
     * @return this builder
     */
    public Builder withConnectionTimeout(Duration timeout) {
      this.connectionTimeout = Objects.requireNonNull(timeout, "connectionTimeout");
      return this;
    }

    /**
     * @param interval the heartbeat interval asked of the broker (whole seconds; zero disables); default 60 s
     * @return this builder
     */
    public Builder withRequestedHeartbeat(Duration interval) {
      this.requestedHeartbeat = Objects.requireNonNull(interval, "requestedHeartbeat");
      return this;
    }

    /**
     * @param timeout how long a publish waits for its confirm before it counts as a retryable failure; default 5 s;
     *     keep it below the relay's delivery timeout (default 10 s) and so below the lease
     * @return this builder
     */
    public Builder withConfirmTimeout(Duration timeout) {
      this.confirmTimeout = Objects.requireNonNull(timeout, "confirmTimeout");
      return this;
    }

    /**
     * @param interval the pause between automatic recovery attempts after a lost connection, and between first
     *     connection attempts; default 1 s
     * @return this builder
     */
    public Builder withRecoveryInterval(Duration interval) {
      this.recoveryInterval = Objects.requireNonNull(interval, "recoveryInterval");
      return this;
    }

    /**
     * @param mapping decides each message's exchange and routing key (for example from its ordering key, for a
     *     consistent-hash exchange); default {@link AmqpAddress#parse} of the destination. An exception it throws is
     *     a permanent failure of that message.
     * @return this builder
     */
    public Builder withAddressMapping(Function<Message, AmqpAddress> mapping) {
      this.addressing = Objects.requireNonNull(mapping, "addressMapping");
      return this;
    }

    /**
     * @param source the time for the AMQP timestamp property and the reconnect delay; default the UTC system clock
     * @return this builder
     */
    public Builder withClock(Clock source) {
      this.clock = Objects.requireNonNull(source, "clock");
      return this;
    }

    ConnectionFactory factory() {
      ConnectionFactory factory = new ConnectionFactory();
      if (uri != null) {
        try {
          factory.setUri(uri);
        } catch (URISyntaxException | GeneralSecurityException | IllegalArgumentException e) {
          throw new IllegalArgumentException("uri is not a valid amqp:// or amqps:// URI"); // never echo the secret
        }
      } else {
        factory.setHost("127.0.0.1");
      }
      if (host != null) {
        factory.setHost(host);
      }
      if (port != null) {
        factory.setPort(port);
      }
      if (virtualHost != null) {
        factory.setVirtualHost(virtualHost);
      }
      if (username != null) {
        factory.setUsername(username);
      }
      if (password != null) {
        factory.setPassword(password);
      }
      factory.setConnectionTimeout(Math.toIntExact(connectionTimeout.toMillis()));
      factory.setHandshakeTimeout(Math.toIntExact(connectionTimeout.toMillis()));
      factory.setRequestedHeartbeat(Math.toIntExact(requestedHeartbeat.toSeconds()));
      factory.setAutomaticRecoveryEnabled(true);
      factory.setTopologyRecoveryEnabled(false); // the transport declares nothing that would need recovering
      factory.setNetworkRecoveryInterval(recoveryInterval.toMillis());
      return factory;
    }

    /**
     * @return the transport, not yet connected
     * @throws IllegalArgumentException naming the option out of range: a port outside 1..65535, a non-positive
     *     timeout or interval, a negative heartbeat, a malformed URI
     */
    public RabbitMqTransport build() {
      if (port != null && (port < 1 || port > 65_535)) {
        throw new IllegalArgumentException("port must be 1..65535, was " + port);
      }
      requirePositive("connectionTimeout", connectionTimeout);
      requirePositive("confirmTimeout", confirmTimeout);
      requirePositive("recoveryInterval", recoveryInterval);
      if (requestedHeartbeat.isNegative()) {
        throw new IllegalArgumentException("requestedHeartbeat must not be negative, was " + requestedHeartbeat);
      }
      return new RabbitMqTransport(this);
    }

    private static void requirePositive(String name, Duration value) {
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
    }
  }
}
