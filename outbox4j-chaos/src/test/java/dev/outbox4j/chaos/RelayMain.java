package dev.outbox4j.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.BatchReport;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.kafka.KafkaTransport;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.rabbitmq.RabbitMqTransport;
import dev.outbox4j.spi.DeliveredAndClaimed;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.Transport;
import java.io.PrintStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A relay process: one {@link Relay} over the suite's database, delivering through the transport under test, until it
 * is killed. It prints one line per event the suite checks ({@code CLAIM_LOST}, {@code QUARANTINED}) and a line per
 * streak of errors, to its log file, which survives a SIGKILL.
 *
 * <p>Transports: {@code ledger}, an in-process transport whose callback inserts the message into the consumer-ledger
 * table of a separate database (reached through the suite's {@code TcpProxy}, so an outage can be injected);
 * {@code rabbitmq}, the real broker, also through a proxy; and {@code kafka}, the in-process broker of the suite's JVM
 * through its own proxy, transactional with {@code transactions=true}. With {@code freezeFlag}, the relay stops itself
 * after a confirmed delivery when asked to ({@link SelfFreezingTransport}); with {@code selfKillFlag}, it SIGKILLs
 * itself after a confirmation when that flag file appears ({@link SelfKillingTransport}); with {@code refuseFlag}, one destination is refused
 * while the flag file exists ({@link RefusingDestinationTransport}). {@code claims} names the store's
 * {@link ClaimStrategy} ({@code leased-rows} or {@code leased-batches}; the database's default when not given).
 * With {@code oneCommitPerBatch}, the store retires a full batch in the next claim's transaction, and the relay prints a
 * {@code COMBINED_STEP} line per such step. {@code workers} and {@code batchSize} default to 1 and 100.
 */
public final class RelayMain {
  private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
  /**
   * The ledger transport's stated bound on an answer. A send waits up to 2 s for a pool connection, then inserts only
   * if the server's clock has not passed {@link #LEDGER_LANDING_DEADLINE} since the send began (the suite's processes
   * and servers share one machine clock); the rest is a margin for the answer to travel back.
   */
  private static final Duration LEDGER_ANSWER_BOUND = Duration.ofSeconds(3);
  private static final Duration LEDGER_LANDING_DEADLINE = Duration.ofMillis(2500);

  private RelayMain() {}

  /** @param arguments {@code name=value}: see {@link ChaosRun} for the names */
  public static void main(String[] arguments) throws Exception {
    ChildWatchdog.haltWhenParentExits();
    ChildArguments args = ChildArguments.parse(arguments);
    String name = args.text("name");
    HikariDataSource pool = pool(args.text("url"), "relay-store", 6);
    JdbcOutboxStore store = buildStore(pool, args);
    Transport transport = transport(args, name);
    if (args.optional("refuseFlag") != null) {
      transport = new RefusingDestinationTransport(transport, args.text("refuseDestination"),
          java.nio.file.Path.of(args.optional("refuseFlag")));
    }
    if (args.optional("freezeFlag") != null) {
      transport = new SelfFreezingTransport(transport, java.nio.file.Path.of(args.optional("freezeFlag")));
    }
    if (args.optional("selfKillFlag") != null) {
      // outside the freeze: a confirmation is offered to the freeze first, so an armed self-kill never spoils one
      transport = new SelfKillingTransport(transport, java.nio.file.Path.of(args.text("selfKillFlag")));
    }
    Duration deliveryTimeout = max(args.duration("deliveryTimeout"), transport.maxAnswerTime());
    Duration lease = max(args.duration("lease"), deliveryTimeout.plusSeconds(1));
    RetryPolicy retry = RetryPolicy.exponential().withBase(args.duration("retryBase"))
        .withCap(args.duration("retryCap")).withMaxAttempts(args.integer("maxAttempts"))
        .withGiveUpAfter(args.duration("giveUpAfter")).build();
    var builder = Relay.builder(args.has("oneCommitPerBatch") ? oneCommitPerBatch(store) : store, transport);
    if (args.optional("outageCap") != null) {
      builder.withOutageBackoff(args.duration("outageBase"), args.duration("outageCap"));
    }
    Relay relay = builder
        .withLease(lease)
        .withDeliveryTimeout(deliveryTimeout)
        .withRetryPolicy(retry)
        .withBatchSize(args.has("batchSize") ? args.integer("batchSize") : 100)
        .withWorkers(args.has("workers") ? args.integer("workers") : 1)
        .withPollInterval(Duration.ofMillis(5), Duration.ofMillis(200))
        .onEvent(new EventLines())
        .build();
    // On a normal exit or SIGTERM the relay stops and hands back what it has not sent; a SIGKILL (what the suite
    // sends) skips this, and the claims wait for their lease.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      relay.close();
      store.close();
    }, "relay-main-close"));
    relay.start();
    OUT.println("RELAY_STARTED " + name + " lease=" + lease.toMillis() + " deliveryTimeout="
        + deliveryTimeout.toMillis() + " claims=" + store.claimStrategy() + " retry=" + retry);
    new CountDownLatch(1).await(); // runs until killed
  }

  /**
   * Turns on the store's one commit per batch ({@code useOneCommitPerBatch}) and returns a view of the store that
   * prints a {@code COMBINED_STEP} line for each step the relay takes (the suite counts them: a run whose relays never
   * took one proves nothing about it).
   */
  private static OutboxStore oneCommitPerBatch(JdbcOutboxStore store) {
    store.useOneCommitPerBatch(true);
    InvocationHandler handler = (proxy, method, methodArgs) -> {
      Object result;
      try {
        result = method.invoke(store, methodArgs);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      if (method.getName().equals("markDeliveredAndClaim")) {
        DeliveredAndClaimed step = (DeliveredAndClaimed) result;
        OUT.println("COMBINED_STEP " + Instant.now() + " retired=" + ((java.util.Collection<?>) methodArgs[0]).size()
            + " lost=" + step.lost().size() + " claimed=" + step.claims().size());
      }
      return result;
    };
    return (OutboxStore) Proxy.newProxyInstance(RelayMain.class.getClassLoader(),
        new Class<?>[] {OutboxStore.class}, handler);
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static HikariDataSource pool(String url, String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(2_000);
    config.setValidationTimeout(1_000);
    config.setInitializationFailTimeout(-1);
    config.setPoolName(name);
    return new HikariDataSource(config);
  }

  /**
   * Builds the store and has it detect its database, waiting (bounded) for the database if this relay was started
   * while it was down or while its connections time out (a pooler in front of a loaded machine): the dialect is
   * detected lazily, at the first call that needs it, which would otherwise end the process right after its start.
   */
  private static JdbcOutboxStore buildStore(DataSource pool, ChildArguments args) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      try {
        JdbcOutboxStore.Builder builder = JdbcOutboxStore.builder(pool).withTablePrefix(args.text("prefix"))
            .withRetention(Retention.keepFor(Duration.ofHours(1)));
        if (args.has("claims")) {
          builder.withClaimStrategy(args.constant("claims", ClaimStrategy.LEASED_ROWS));
        }
        JdbcOutboxStore store = builder.build();
        store.claimStrategy(); // detects the dialect now, inside this loop
        return store;
      } catch (RuntimeException e) {
        OUT.println("STORE_BUILD_FAILED " + e);
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(500); // the database is down; a process start-up retry, not test logic
      }
    }
  }

  private static Transport transport(ChildArguments args, String name) {
    switch (args.text("transport")) {
      case "ledger" -> {
        // two connections: the shared server's are few, and the relay sends one message of a key at a time
        HikariDataSource ledger = pool(args.text("ledgerUrl"), "relay-ledger", 2);
        Transport inserts = InProcessTransport.of(message -> {
          // The insert lands only while the server's clock is before the landing deadline, however long it waited for
          // a connection or in the outage proxy: so a send certainly landed or failed within LEDGER_ANSWER_BOUND, as
          // a transport must state and keep (a copy that lands later could overtake a re-send).
          Instant landBy = Instant.now().plus(LEDGER_LANDING_DEADLINE);
          try (Connection connection = ledger.getConnection();
              PreparedStatement insert = connection.prepareStatement("INSERT INTO chaos_received (message_id,"
                  + " ordering_key, relay) SELECT ?, ?, ? WHERE clock_timestamp() < ?")) {
            insert.setString(1, message.id().toString());
            insert.setString(2, message.orderingKey().orElse(""));
            insert.setString(3, name);
            insert.setObject(4, java.time.OffsetDateTime.ofInstant(landBy, java.time.ZoneOffset.UTC));
            return insert.executeUpdate() == 1 ? DeliveryOutcome.delivered()
                : DeliveryOutcome.retryable("consumer ledger answered after the landing deadline; not delivered");
          } catch (SQLException e) {
            // As the real transports do: a destination that cannot be reached at all is reported unavailable, so the
            // relay pauses (an outage) instead of charging the entry; a relay that holds a single key's entry when the
            // outage starts would otherwise spend that entry's retry budget alone.
            boolean unreachable = e instanceof java.sql.SQLTransientConnectionException
                || (e.getSQLState() != null && e.getSQLState().startsWith("08"));
            return unreachable ? DeliveryOutcome.unavailable("consumer ledger unreachable: " + e.getMessage())
                : DeliveryOutcome.retryable("consumer ledger failed: " + e.getMessage());
          }
        });
        return new Transport() {
          @Override
          public java.util.concurrent.CompletionStage<DeliveryOutcome> deliver(dev.outbox4j.Message message) {
            return inserts.deliver(message);
          }

          @Override
          public Duration maxAnswerTime() {
            return LEDGER_ANSWER_BOUND;
          }

          @Override
          public void close() {
            inserts.close();
          }
        };
      }
      case "rabbitmq" -> {
        return RabbitMqTransport.builder().withHost("127.0.0.1").withPort(args.integer("brokerPort"))
            .withConnectionName("chaos-" + name).withConnectionTimeout(Duration.ofSeconds(2))
            .withConfirmTimeout(args.duration("deliveryTimeout")).withRecoveryInterval(Duration.ofMillis(500))
            .build();
      }
      case "kafka" -> {
        return KafkaTransport.fromProperties(kafkaProperties(args, name));
      }
      default -> throw new IllegalArgumentException("unknown transport " + args.text("transport"));
    }
  }

  /**
   * The Kafka transport's properties, as the runnable relay would read them: the broker through the proxy, timeouts
   * short enough for a relay's lease to fit a chaos run, and, with {@code transactions=true}, the transactional mode
   * with its bounds ({@code maxAnswerTime} is their sum; the relay's lease is raised to it).
   */
  private static java.util.Map<String, String> kafkaProperties(ChildArguments args, String name) {
    java.util.Map<String, String> properties = new java.util.LinkedHashMap<>();
    properties.put("bootstrap.servers", args.text("bootstrap"));
    properties.put("client.id", "chaos-" + name);
    properties.put("request.timeout", "2s");
    properties.put("delivery.timeout", "4s");
    properties.put("max.block", "2s");
    if (Boolean.parseBoolean(args.text("transactions"))) {
      properties.put("transactions.enabled", "true");
      properties.put("transactions.id-prefix", args.text("transactionalIdPrefix"));
      properties.put("transactions.progress-topic", args.text("progressTopic"));
      properties.put("transactions.start-bound", args.text("startBound") + "ms");
      properties.put("transactions.timeout", args.text("transactionTimeout") + "ms");
      properties.put("transactions.abort-sweep", args.text("abortSweep") + "ms");
      properties.put("transactions.clock-skew", args.text("clockSkew") + "ms");
    }
    return properties;
  }

  /** Prints what the suite counts; errors once per streak, not once per pass. */
  private static final class EventLines implements RelayListener {
    private final AtomicLong errors = new AtomicLong();

    @Override
    public void onClaimLost(OutboxEntry entry) {
      OUT.println("CLAIM_LOST " + entry.id() + " at " + Instant.now());
    }

    @Override
    public void onQuarantined(OutboxEntry entry, String reason) {
      OUT.println("QUARANTINED " + entry.id() + " " + reason);
    }

    @Override
    public void onBatch(BatchReport report) {
      if (report.result().claimed() > 0) {
        OUT.println("BATCH " + Instant.now() + " " + report.result() + " claim=" + report.claimTime().toMillis()
            + "ms waited=" + report.deliveryTime().toMillis() + "ms");
      }
    }

    @Override
    public void onDestinationPaused(dev.outbox4j.DestinationStatus status) {
      OUT.println("DESTINATION_PAUSED " + status.destination() + " at " + Instant.now() + ": " + status.lastError());
    }

    @Override
    public void onDestinationResumed(String destination, Duration pausedFor) {
      OUT.println("DESTINATION_RESUMED " + destination + " at " + Instant.now() + " after " + pausedFor);
    }

    /**
     * Prints {@code STATEMENT_FAILURE} for every error about a server-side prepared statement (a pooler in transaction
     * mode handing this client's transaction a server connection that holds another client's statements, or none of
     * its own), each a failed claim or completion; and every fiftieth error of any kind.
     */
    @Override
    public void onError(Throwable error) {
      String statement = preparedStatementFailure(error);
      if (statement != null) {
        OUT.println("STATEMENT_FAILURE " + statement);
      }
      if (errors.incrementAndGet() % 50 == 1) {
        OUT.println("RELAY_ERROR (" + errors + " so far) " + error);
      }
    }

    /** @return the message in the error's causes that names a prepared statement, or {@code null} */
    private static String preparedStatementFailure(Throwable error) {
      for (Throwable cause = error; cause != null; cause = cause.getCause()) {
        String message = cause.getMessage();
        if (message != null && message.contains("prepared statement")) {
          return message.replace('\n', ' ');
        }
      }
      return null;
    }
  }
}
