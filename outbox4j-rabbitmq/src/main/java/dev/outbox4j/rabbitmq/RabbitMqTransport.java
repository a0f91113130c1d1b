package dev.outbox4j.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.SocketConfigurators;
import dev.outbox4j.Message;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.TlsSettings;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spi.TransportProperties;
import java.io.IOException;
import java.net.Socket;
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
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
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
 *       once and confirmed in a few frames, not one round trip per message.
 *   <li><b>Publishing runs on the transport's own thread, never the caller's.</b> {@code basicPublish} blocks when the
 *       broker stops reading the connection (a memory or disk alarm blocks every publishing connection) or the
 *       network stalls; on the relay's thread that would stop its deadlines and its {@code close()}. So
 *       {@link #deliver} only queues the publish for one publisher thread (which also keeps a channel's tag read and
 *       publish atomic, as channels require) and returns.
 *   <li><b>A bound on every answer, enforced by a reset.</b> Every delivery is answered within the confirm timeout
 *       ({@link #maxAnswerTime()}). At that bound a publish still waiting to be written is dropped unsent, and one that
 *       was (being) written without a confirm resets the connection: its socket is closed with {@code SO_LINGER} 0,
 *       so the frames the client still holds (its own buffers, the kernel's send buffer, a write blocked by the
 *       broker) are discarded instead of reaching the broker once it reads again. Bytes the broker's kernel had
 *       already received when it stopped reading cannot be withdrawn by any client; under a resource alarm they are
 *       read as the alarm lifts, which happens for all connections at once, before a later message of the same key
 *       can be published (that waits for a confirm the alarm held back). The publisher checks the bound itself too,
 *       and on plain connections so does the socket before each write ({@link PublishGuard}): after a pause of the
 *       whole process the deadline timer may run after the publisher.
 *   <li><b>A blocked connection is not published to.</b> While the broker reports the connection blocked
 *       ({@code connection.blocked}), deliveries fail at once as retryable, naming the broker's reason, instead of
 *       queueing frames the broker will not read.
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
  /** How long {@link #close()} waits for each of its steps (the publisher thread, the connection's close). */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  private final ConnectionFactory factory;
  private final String connectionName;
  private final String endpointDescription;
  private final Function<Message, AmqpAddress> addressing;
  private final Duration confirmTimeout;
  private final Duration recoveryInterval;
  private final Clock clock;

  private final Set<String> knownExchanges = ConcurrentHashMap.newKeySet();
  /** The client's sockets (the connection's, and a recovering one's), so the bound can reset them. */
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  /** Deliveries not yet answered, so {@link #close()} can answer them. */
  private final Set<Pending> unanswered = ConcurrentHashMap.newKeySet();
  private final ThreadPoolExecutor publisher;
  private final ScheduledThreadPoolExecutor timer;
  private volatile boolean closed;
  /** The broker's reason while it reports the connection blocked, else {@code null}. */
  private volatile @Nullable String blockedBecause;
  // touched by the publisher thread only, and by close() once the publisher has stopped
  /** Checks each publish's bound at the socket, the last moment before its bytes leave (plain connections). */
  private final PublishGuard guard = new PublishGuard();
  private @Nullable Connection connection;
  private @Nullable PublishChannel channel;
  private @Nullable Instant nextConnectAttempt;

  private RabbitMqTransport(Builder builder) {
    this.factory = builder.factory();
    if (!factory.isSSL()) {
      factory.setSocketFactory(guard.socketFactory());
    }
    factory.setSocketConfigurator(SocketConfigurators.defaultConfigurator().andThen(socket -> {
      sockets.removeIf(Socket::isClosed);
      sockets.add(socket);
    }));
    this.connectionName = builder.connectionName;
    this.endpointDescription = factory.getHost() + ":" + factory.getPort() + factory.getVirtualHost()
        + " as " + factory.getUsername();
    this.addressing = builder.addressing;
    this.confirmTimeout = builder.confirmTimeout;
    this.recoveryInterval = builder.recoveryInterval;
    this.clock = builder.clock;
    this.publisher = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
        named(builder.threadFactory, "outbox4j-rabbitmq-publish"));
    this.timer = new ScheduledThreadPoolExecutor(1, named(builder.threadFactory, "outbox4j-rabbitmq-deadline"));
    timer.setRemoveOnCancelPolicy(true);
  }

  private static ThreadFactory named(ThreadFactory factory, String name) {
    return task -> {
      Thread thread = factory.newThread(task);
      thread.setName(name);
      return thread;
    };
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
   *       {@code requested-heartbeat} (60s), {@code confirm-timeout} (5s), {@code recovery-interval} (1s);
   *   <li>{@code tls.*}: TLS, see {@link TlsSettings#fromProperties}; the port defaults to 5671 with TLS;
   *   <li>{@code auth-mechanism}: {@code PLAIN} (default, user name and password) or {@code EXTERNAL} (the TLS client
   *       certificate).
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
    TlsSettings.fromProperties(props).ifPresent(builder::withTls);
    props.string("auth-mechanism").ifPresent(mechanism -> {
      if (mechanism.equalsIgnoreCase("EXTERNAL")) {
        builder.withExternalAuthentication();
      } else if (!mechanism.equalsIgnoreCase("PLAIN")) {
        throw new IllegalArgumentException(
            "rabbitmq property 'auth-mechanism' must be PLAIN or EXTERNAL, was '" + mechanism + "'");
      }
    });
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
   * <p>Written following the CloudEvents AMQP binding (see {@link RabbitMqCloudEventsBinding}): {@code cloudEvents_}
   * headers and the {@code content-type} property; the message id stays the {@code message-id} property.
   */
  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message, CloudEvent event) {
    return send(message, event);
  }

  private CompletionStage<DeliveryOutcome> send(Message message, @Nullable CloudEvent event) {
    AmqpAddress address;
    try {
      address = Objects.requireNonNull(addressing.apply(message), "address mapping returned null");
    } catch (RuntimeException e) {
      return done(DeliveryOutcome.permanent("destination '" + message.destination() + "' maps to no address: " + e));
    }
    String messageId = message.id().toString();
    AMQP.BasicProperties properties;
    try {
      properties = properties(message, messageId, event);
    } catch (RuntimeException e) {
      return done(DeliveryOutcome.permanent("message cannot be expressed as AMQP properties: " + e.getMessage()));
    }
    if (closed) {
      return done(DeliveryOutcome.unavailable("transport is closed"));
    }
    String blocked = blockedBecause;
    if (blocked != null) {
      return done(DeliveryOutcome.unavailable("RabbitMQ blocked publishing on this connection: " + blocked));
    }
    Pending pending = new Pending(messageId, address, properties,
        event == null ? message.payload() : RabbitMqCloudEventsBinding.body(message, event),
        System.nanoTime() + confirmTimeout.toNanos());
    unanswered.add(pending);
    pending.future.whenComplete((outcome, error) -> unanswered.remove(pending));
    try {
      ScheduledFuture<?> deadline = timer.schedule(() -> expire(pending), confirmTimeout.toNanos(),
          TimeUnit.NANOSECONDS);
      pending.future.whenComplete((outcome, error) -> deadline.cancel(false));
      publisher.execute(() -> publish(pending));
    } catch (RejectedExecutionException e) {
      pending.future.complete(DeliveryOutcome.unavailable("transport is closed"));
    }
    return pending.future;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The confirm timeout: a delivery is answered by then, and a publish without a confirm by then resets the
   * connection so that nothing the client still holds of it can reach the broker later.
   */
  @Override
  public Duration maxAnswerTime() {
    return confirmTimeout;
  }

  /** Runs on the publisher thread. */
  private void publish(Pending pending) {
    if (pending.overdue()) {
      dropOverdue(pending); // the process stood still past the bound (a pause): the deadline timer is not first
      return;
    }
    if (!pending.start()) {
      return; // answered (timed out or closed) before its turn: never sent
    }
    AmqpAddress address = pending.address;
    try {
      if (closed) {
        pending.future.complete(DeliveryOutcome.unavailable("transport is closed"));
        return;
      }
      String blocked = blockedBecause;
      if (blocked != null) {
        pending.future.complete(
            DeliveryOutcome.unavailable("RabbitMQ blocked publishing on this connection: " + blocked));
        return;
      }
      Connection open = openConnection();
      DeliveryOutcome refusal = checkExchange(open, address.exchange());
      if (refusal != null) {
        pending.future.complete(refusal);
        return;
      }
      PublishChannel publishing = openChannel(open);
      if (pending.future.isDone()) {
        return; // the bound passed while connecting or checking the exchange (that reset the connection): never sent
      }
      if (pending.overdue()) {
        dropOverdue(pending); // checked once more right before the write, since the timer may not have run yet
        return;
      }
      long tag = publishing.channel.getNextPublishSeqNo();
      publishing.track(tag, pending);
      pending.future.whenComplete((outcome, error) -> publishing.forget(tag, pending));
      guard.writing(pending.deadline);
      try {
        publishing.channel.basicPublish(address.exchange(), address.routingKey(), true, pending.properties,
            pending.body);
      } catch (IOException | AlreadyClosedException e) {
        if (pending.overdue()) {
          dropOverdue(pending); // the guard reset the connection before any byte of it left
        } else {
          pending.future.complete(DeliveryOutcome.unavailable("publish to " + address + " failed: " + e));
        }
      } finally {
        guard.written();
      }
    } catch (IOException | TimeoutException | RuntimeException e) {
      pending.future.complete(DeliveryOutcome.unavailable("RabbitMQ unavailable (" + endpointDescription + "): " + e));
    }
  }

  /**
   * Answers a publish whose bound passed before the publisher wrote it, so that it is never written: after a pause of
   * the whole process (a long GC pause, a frozen VM) the publisher and the deadline timer resume together, and the
   * publisher must not win that race, since another relay may have taken the entry over meanwhile.
   */
  private void dropOverdue(Pending pending) {
    pending.state.set(Pending.EXPIRED);
    pending.future.complete(DeliveryOutcome.retryable("no publisher confirm within " + confirmTimeout
        + "; never sent: its bound passed before the publisher reached it"));
  }

  /** Runs on the timer thread at the delivery's bound. */
  private void expire(Pending pending) {
    boolean wasSent = pending.expire();
    if (!pending.future.complete(DeliveryOutcome.retryable("no publisher confirm within " + confirmTimeout
        + (wasSent ? "; the connection was reset so that the publish cannot land later" : "; never sent")))) {
      return;
    }
    if (wasSent) {
      resetConnection("a publish had no confirm within " + confirmTimeout);
    }
  }

  /**
   * Closes the client's sockets with {@code SO_LINGER} 0: a reset that discards what the client still holds and
   * unblocks a write the broker is not reading. Automatic recovery then opens a fresh connection.
   */
  private void resetConnection(String why) {
    for (Socket socket : sockets) {
      try {
        socket.setSoLinger(true, 0);
      } catch (IOException e) {
        // already closed
      }
      try {
        socket.close();
      } catch (IOException e) {
        // already closed
      }
      sockets.remove(socket);
    }
    LOG.log(System.Logger.Level.DEBUG, "RabbitMQ connection reset: {0}", why);
  }

  private AMQP.BasicProperties properties(Message message, String messageId, @Nullable CloudEvent event) {
    Map<String, Object> headers = new HashMap<>(message.headers());
    if (event != null) {
      RabbitMqCloudEventsBinding.writeHeaders(headers, event);
    }
    return new AMQP.BasicProperties.Builder()
        .messageId(messageId)
        .contentType(event == null ? message.contentType() : RabbitMqCloudEventsBinding.contentType(event))
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
      created.addBlockedListener(new BlockedListener() {
        @Override
        public void handleBlocked(String reason) {
          blockedBecause = reason == null || reason.isBlank() ? "(no reason given)" : reason;
        }

        @Override
        public void handleUnblocked() {
          blockedBecause = null;
        }
      });
      if (created instanceof Recoverable recoverable) {
        recoverable.addRecoveryListener(new RecoveryListener() {
          @Override
          public void handleRecovery(Recoverable recovered) {
            blockedBecause = null; // a fresh connection; the broker says so again if the alarm persists
          }

          @Override
          public void handleRecoveryStarted(Recoverable recovering) {}
        });
      }
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
    PublishChannel publishing = new PublishChannel(created);
    created.addConfirmListener(publishing);
    created.addReturnListener(publishing);
    created.addShutdownListener(publishing::shutdown);
    channel = publishing;
    return publishing;
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

  /**
   * Answers every unanswered delivery as retryable and closes the connection, within a few seconds even when the
   * broker does not read the connection (a resource alarm) or a publish is blocked: a publish that was written
   * without a confirm resets the connection first, so it cannot land after the close. Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    boolean unconfirmed = false;
    for (Pending pending : unanswered) {
      unconfirmed |= pending.expire();
      pending.future.complete(DeliveryOutcome.unavailable("transport closed before the broker confirmed"));
    }
    if (unconfirmed || blockedBecause != null) {
      resetConnection("transport closed with publishes unconfirmed or the connection blocked");
    }
    publisher.shutdownNow();
    timer.shutdownNow();
    try {
      if (!publisher.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        resetConnection("the publisher thread did not stop within " + CLOSE_WAIT);
        publisher.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Connection current = connection;
    connection = null;
    channel = null;
    if (current != null) {
      try {
        current.abort(Math.toIntExact(CLOSE_WAIT.toMillis()));
      } catch (RuntimeException e) {
        // closing either way
      }
    }
    resetConnection("transport closed"); // a recovery that raced the abort leaves nothing open
  }

  @Override
  public String toString() {
    return "RabbitMqTransport{" + endpointDescription + ", confirmTimeout=" + confirmTimeout + "}";
  }

  /** One publish, from {@link #deliver} until its answer. */
  private static final class Pending {
    private static final int QUEUED = 0;
    private static final int SENT = 1;
    private static final int EXPIRED = 2;

    final String messageId;
    final AmqpAddress address;
    final AMQP.BasicProperties properties;
    final byte[] body;
    final CompletableFuture<DeliveryOutcome> future = new CompletableFuture<>();
    final AtomicInteger state = new AtomicInteger(QUEUED);
    /** The bound, on {@link System#nanoTime()}: it keeps counting while the process is stopped. */
    final long deadline;
    volatile @Nullable String returnedBecause;

    Pending(String messageId, AmqpAddress address, AMQP.BasicProperties properties, byte[] body, long deadline) {
      this.messageId = messageId;
      this.address = address;
      this.properties = properties;
      this.body = body;
      this.deadline = deadline;
    }

    /** @return whether its bound has passed, whether or not the deadline timer has run */
    boolean overdue() {
      return System.nanoTime() - deadline >= 0;
    }

    /** @return {@code true} if the publisher may send it: not expired or closed before its turn */
    boolean start() {
      return state.compareAndSet(QUEUED, SENT);
    }

    /** @return {@code true} if it may have been (or is being) written: the connection must then be reset */
    boolean expire() {
      return state.getAndSet(EXPIRED) == SENT && !future.isDone();
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
      failAll(reason, cause.isHardError()); // the connection went: an outage, not a failure of these messages
      LOG.log(System.Logger.Level.DEBUG, "RabbitMQ publish channel shut down: {0}", cause.getMessage());
    }

    void failAll(String reason, boolean connectionLost) {
      for (Pending pending : outstanding.values()) {
        pending.future.complete(connectionLost
            ? DeliveryOutcome.unavailable(reason) : DeliveryOutcome.retryable(reason));
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
    private @Nullable TlsSettings tls;
    private boolean externalAuthentication;
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
    private ThreadFactory threadFactory = task -> {
      Thread thread = new Thread(task);
      thread.setDaemon(true);
      return thread;
    };

    private Builder() {}

    /**
     * @param factory makes the transport's two threads (the publisher, and the timer that enforces each delivery's
     *     bound); default daemon threads. The transport names them.
     * @return this builder
     */
    public Builder withThreadFactory(ThreadFactory factory) {
      this.threadFactory = Objects.requireNonNull(factory, "threadFactory");
      return this;
    }

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
     * @param settings TLS to the broker (trust store, client certificate, hostname verification); without it an
     *     {@code amqps://} URI uses the JVM's trusted authorities. The port defaults to 5671 with TLS.
     * @return this builder
     * @see TlsSettings
     */
    public Builder withTls(TlsSettings settings) {
      this.tls = Objects.requireNonNull(settings, "tls");
      return this;
    }

    /**
     * Authenticates with the TLS client certificate (SASL {@code EXTERNAL}, the broker's
     * {@code rabbitmq_auth_mechanism_ssl} plugin) instead of a user name and password. Needs {@link #withTls} with a
     * client certificate.
     *
     * @return this builder
     */
    public Builder withExternalAuthentication() {
      this.externalAuthentication = true;
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
     * @param timeout the bound on every delivery ({@link RabbitMqTransport#maxAnswerTime()}): a publish without a
     *     confirm by then counts as a retryable failure and resets the connection; default 5 s. The relay's delivery
     *     timeout and lease must be at least this long.
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
      // exchange checks and channel opening are RPCs; a broker that stopped reading must not hold them for 10 minutes
      factory.setChannelRpcTimeout(Math.toIntExact(confirmTimeout.toMillis()));
      RabbitMqSecurity.apply(factory, tls, externalAuthentication);
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
