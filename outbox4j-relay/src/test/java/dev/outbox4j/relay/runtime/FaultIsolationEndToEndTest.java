package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.sun.net.httpserver.HttpServer;
import dev.outbox4j.DestinationStatus;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.Sleeper;
import dev.outbox4j.http.HttpTransport;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.nats.NatsTransport;
import dev.outbox4j.rabbitmq.RabbitMqTransport;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.testkit.ConsumerLedger;
import dev.outbox4j.testkit.TcpProxy;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A fault stays in its lane (SPEC §4), with the real transports on a real PostgreSQL outbox: one destination refusing
 * everything beside a healthy one, the refusing one's backlog written first (so it is older and is claimed first).
 *
 * <p>Each test first delivers the healthy destination's backlog alone (the baseline), then the same size again with the
 * refusing destination's backlog in front of it, and prints the ratio of the two rates. The rate itself is not asserted
 * (performance is measured in outbox4j-bench and the chaos suite, never by a timed unit test); what is asserted is the
 * isolation: every healthy entry arrives, once, in key order, within a generous bound; the relay never paused for the
 * refusing destination's outage (its outage sleeper was never called); the refusing destination is named by
 * {@link Relay#pausedDestinations()} with its last error and its entries are charged nothing (or, for a failure the
 * transport calls permanent, only each key's head is quarantined and the rest wait uncharged); and once the fault is
 * mended the refusing destination's entries all arrive, in key order.
 */
class FaultIsolationEndToEndTest {
  private static final int HEALTHY = 3_000;
  private static final int HEALTHY_KEYS = 100;
  private static final int REFUSED = 600;
  private static final int REFUSED_KEYS = 30;
  private static final Duration BOUND = Duration.ofSeconds(120);

  private final PostgresTestOutbox outbox = PostgresTestOutbox.fresh("e2e_iso_");
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void closeEverything() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      try {
        cleanup.get(i).close();
      } catch (Exception e) {
        // best effort: the next resource still closes
      }
    }
    outbox.close();
  }

  // ------------------------------------------------------------------------------------------------ scenarios

  @Test
  void an_endpoint_answering_503_to_everything_pauses_alone_and_its_neighbour_on_the_same_transport_keeps_flowing() {
    Webhooks hooks = new Webhooks();
    ConsumerLedger refusedLedger = new ConsumerLedger();
    ConsumerLedger[] healthyLedger = {new ConsumerLedger()};
    hooks.onOk("/healthy", (id, body) -> healthyLedger[0].record(id, body));
    hooks.onOk("/refusing", refusedLedger::record);
    hooks.refuse("/refusing", 503);
    HttpTransport transport = closeLater(HttpTransport.builder()
        .withEndpoint("healthy", hooks.uri("/healthy")).withEndpoint("refusing", hooks.uri("/refusing")).build());

    Scenario scenario = new Scenario(transport, "healthy", "refusing");
    scenario.baseline(() -> healthyLedger[0]);
    healthyLedger[0] = new ConsumerLedger();
    Relay relay = scenario.withFault(healthyLedger[0]);

    assertThat(relay.pausedDestinations()).extracting(DestinationStatus::destination).containsExactly("refusing");
    assertThat(relay.pausedDestinations().get(0).lastError()).contains("503");
    scenario.assertRefusedUncharged();
    assertThat(refusedLedger.uniqueCount()).isZero();

    hooks.refuse("/refusing", 200);
    scenario.awaitRefused(refusedLedger);
    assertThat(relay.pausedDestinations()).as("resumed by its first confirmed probe").isEmpty();
    relay.close();
    scenario.assertNoQuarantine();
  }

  @Test
  void a_missing_exchange_is_quarantined_per_key_head_while_the_queue_beside_it_on_the_same_transport_keeps_flowing()
      throws Exception {
    Rabbit rabbit = closeLater(new Rabbit());
    String queue = rabbit.queue("healthy");
    String missingExchange = "o4j-iso-missing-" + run;
    ConsumerLedger[] healthyLedger = {new ConsumerLedger()};
    rabbit.consume(queue, (id, body) -> healthyLedger[0].record(id, body));
    RabbitMqTransport transport = closeLater(RabbitMqTransport.builder().withHost("127.0.0.1")
        .withPort(Rabbit.PORT).withUsername("guest").withPassword("guest").build());

    Scenario scenario = new Scenario(transport, "/" + queue, missingExchange + "/refused");
    scenario.baseline(() -> healthyLedger[0]);
    healthyLedger[0] = new ConsumerLedger();
    Relay relay = scenario.withFault(healthyLedger[0]);

    // A missing exchange is a configuration error no retry mends: the transport calls it permanent, so each key's head
    // is quarantined (visible, with the reason) and the rest of each key waits behind it, uncharged. Not an outage.
    List<OutboxEntry> quarantined = outbox.store().quarantined(QuarantineQuery.first(1_000));
    assertThat(quarantined).hasSize(REFUSED_KEYS)
        .allSatisfy(entry -> {
          assertThat(entry.message().destination()).isEqualTo(missingExchange + "/refused");
          assertThat(entry.quarantineReason()).contains("does not exist");
        });
    Set<UUID> heads = entryIds(quarantined);
    scenario.assertRefusedUncharged(heads);
    assertThat(relay.pausedDestinations()).as("a permanent refusal is not an outage").isEmpty();
    relay.close();

    // Mended: the exchange exists, the quarantined heads are requeued, and every key drains in order.
    String refusedQueue = rabbit.queue("refused");
    rabbit.declareExchange(missingExchange, refusedQueue, "refused");
    ConsumerLedger refusedLedger = new ConsumerLedger();
    rabbit.consume(refusedQueue, refusedLedger::record);
    for (UUID head : heads) {
      assertThat(outbox.store().requeue(head, Instant.now())).isTrue();
    }
    try (Relay drain = outbox.relayWithFastRetries(transport).build()) {
      drain.start();
      scenario.awaitRefused(refusedLedger);
    }
  }

  @Test
  void a_rabbitmq_broker_cut_off_pauses_its_destination_alone_while_webhooks_through_the_same_relay_keep_flowing()
      throws Exception {
    Webhooks hooks = new Webhooks();
    ConsumerLedger[] healthyLedger = {new ConsumerLedger()};
    hooks.onOk("/healthy", (id, body) -> healthyLedger[0].record(id, body));
    Rabbit rabbit = closeLater(new Rabbit());
    String queue = rabbit.queue("cut");
    ConsumerLedger refusedLedger = new ConsumerLedger();
    rabbit.consume(queue, refusedLedger::record);
    TcpProxy proxy = closeLater(TcpProxy.start("127.0.0.1", Rabbit.PORT));
    RabbitMqTransport rabbitTransport = RabbitMqTransport.builder().withHost(proxy.host()).withPort(proxy.port())
        .withUsername("guest").withPassword("guest").withConnectionTimeout(Duration.ofSeconds(2))
        .withRecoveryInterval(Duration.ofMillis(250)).build();
    HttpTransport httpTransport = HttpTransport.builder().withEndpoint("healthy", hooks.uri("/healthy")).build();
    RoutingTransport transport = closeLater(new RoutingTransport(
        Map.of("healthy", httpTransport, "/" + queue, rabbitTransport), null));

    Scenario scenario = new Scenario(transport, "healthy", "/" + queue);
    scenario.baseline(() -> healthyLedger[0]);
    healthyLedger[0] = new ConsumerLedger();
    proxy.cut();
    Relay relay = scenario.withFault(healthyLedger[0]);

    assertThat(relay.pausedDestinations()).extracting(DestinationStatus::destination).containsExactly("/" + queue);
    assertThat(relay.pausedDestinations().get(0).lastError()).containsIgnoringCase("RabbitMQ");
    scenario.assertRefusedUncharged();
    assertThat(refusedLedger.uniqueCount()).isZero();

    proxy.restore();
    scenario.awaitRefused(refusedLedger);
    assertThat(relay.pausedDestinations()).isEmpty();
    relay.close();
    scenario.assertNoQuarantine();
  }

  @Test
  void a_subject_no_stream_captures_is_quarantined_per_key_head_while_the_subject_beside_it_keeps_flowing()
      throws Exception {
    Jetstream nats = closeLater(new Jetstream(run));
    ConsumerLedger[] healthyLedger = {new ConsumerLedger()};
    nats.consume(nats.captured, (id, body) -> healthyLedger[0].record(id, body));
    NatsTransport transport = closeLater(NatsTransport.builder().withServer(Jetstream.SERVER).build());

    Scenario scenario = new Scenario(transport, nats.captured, nats.uncaptured);
    scenario.baseline(() -> healthyLedger[0]);
    healthyLedger[0] = new ConsumerLedger();
    Relay relay = scenario.withFault(healthyLedger[0]);

    // JetStream answers 503 "no responders"; the transport looks up the streams capturing the subject, finds none and
    // calls it permanent: each key's head is quarantined with the reason, the rest of each key waits uncharged.
    List<OutboxEntry> quarantined = outbox.store().quarantined(QuarantineQuery.first(1_000));
    assertThat(quarantined).hasSize(REFUSED_KEYS)
        .allSatisfy(entry -> {
          assertThat(entry.message().destination()).isEqualTo(nats.uncaptured);
          assertThat(entry.quarantineReason()).contains("no JetStream stream captures subject");
        });
    Set<UUID> heads = entryIds(quarantined);
    scenario.assertRefusedUncharged(heads);
    assertThat(relay.pausedDestinations()).as("a permanent refusal is not an outage").isEmpty();
    relay.close();

    // Mended: a stream captures the subject, the heads are requeued, every key drains in order.
    nats.captureUncaptured();
    ConsumerLedger refusedLedger = new ConsumerLedger();
    nats.consumeSecond(refusedLedger::record);
    for (UUID head : heads) {
      assertThat(outbox.store().requeue(head, Instant.now())).isTrue();
    }
    try (Relay drain = outbox.relayWithFastRetries(transport).build()) {
      drain.start();
      scenario.awaitRefused(refusedLedger);
    }
  }

  // ------------------------------------------------------------------------------------------------ the measurement

  /** One scenario: a baseline of the healthy destination alone, then the same with the refusing one's older backlog. */
  private final class Scenario {
    final Transport transport;
    final String healthy;
    final String refusing;
    final List<Message> refused;
    final OutageSleeps sleeps = new OutageSleeps();
    final Set<String> chargedDestinations = ConcurrentHashMap.newKeySet();
    Duration baseline = Duration.ZERO;

    Scenario(Transport transport, String healthy, String refusing) {
      this.transport = transport;
      this.healthy = healthy;
      this.refusing = refusing;
      this.refused = backlog(refusing, "refused-" + run + "-", REFUSED, REFUSED_KEYS);
    }

    /** Delivers a healthy backlog alone, timed. */
    void baseline(Supplier<ConsumerLedger> ledger) {
      List<Message> sent = backlog(healthy, "base-" + run + "-", HEALTHY, HEALTHY_KEYS);
      outbox.write(sent);
      try (Relay relay = outbox.relayWithFastRetries(transport).build()) {
        long start = System.nanoTime();
        relay.start();
        await().atMost(BOUND).pollInterval(Duration.ofMillis(5))
            .until(() -> ledger.get().uniqueCount() >= HEALTHY && outbox.pending() == 0);
        baseline = Duration.ofNanos(System.nanoTime() - start);
      }
      ledger.get().assertReceivedExactly(sent);
    }

    /**
     * Writes the refusing destination's backlog, then a healthy one of the baseline's size, starts a relay and waits
     * until the healthy one is delivered; prints the rate ratio.
     *
     * @return the relay, still running (the caller mends the fault and closes it)
     */
    Relay withFault(ConsumerLedger ledger) {
      outbox.write(refused);
      List<Message> sent = backlog(healthy, "fault-" + run + "-", HEALTHY, HEALTHY_KEYS);
      outbox.write(sent);
      Relay relay = closeLater(outbox.relayWithFastRetries(transport).withSleeper(sleeps)
          .onEvent(new RelayListener() {
            @Override
            public void onFailed(OutboxEntry entry, String error, Instant nextAttemptAt) {
              chargedDestinations.add(entry.message().destination());
            }
          }).build());
      long start = System.nanoTime();
      relay.start();
      await().atMost(BOUND).pollInterval(Duration.ofMillis(5)).until(() -> ledger.uniqueCount() >= HEALTHY);
      Duration withFault = Duration.ofNanos(System.nanoTime() - start);
      // Every healthy entry recorded as delivered: what still waits is the refused backlog alone (checked entry by
      // entry in assertRefusedUncharged), the quarantined heads of a permanent refusal counted apart.
      await().atMost(BOUND).pollInterval(Duration.ofMillis(50)).until(() -> {
        var stats = outbox.store().stats(Instant.now());
        return stats.pending() + stats.quarantined() <= REFUSED;
      });
      double ratio = (double) baseline.toNanos() / withFault.toNanos();
      System.out.printf(Locale.ROOT, "fault isolation %-28s healthy %d: alone %d ms, beside %d refused %d ms,"
          + " rate ratio %.2f%n", transport.getClass().getSimpleName(), HEALTHY, baseline.toMillis(), REFUSED,
          withFault.toMillis(), ratio);
      ledger.assertReceivedExactly(sent);
      assertThat(sleeps.count()).as("the relay never paused as a whole for the refusing destination").isZero();
      assertThat(chargedDestinations).as("destinations charged an attempt").doesNotContain(healthy);
      return relay;
    }

    /** Delivered: marked so, or already deleted (the store's default retention deletes on delivery). */
    private boolean delivered(UUID id) {
      return outbox.store().find(id).map(e -> e.status() == EntryStatus.DELIVERED).orElse(true);
    }

    void assertRefusedUncharged() {
      assertRefusedUncharged(Set.of());
    }

    /** Every refused entry is undelivered with no attempt charged, except the given quarantined heads. */
    void assertRefusedUncharged(Set<UUID> quarantinedHeads) {
      for (Message message : refused) {
        OutboxEntry entry = outbox.store().find(message.id()).orElseThrow();
        if (quarantinedHeads.contains(message.id())) {
          assertThat(entry.status()).isEqualTo(EntryStatus.QUARANTINED);
          continue;
        }
        assertThat(entry.status()).as("status of %s", message.id()).isNotIn(EntryStatus.DELIVERED,
            EntryStatus.QUARANTINED);
        assertThat(entry.attempts()).as("attempts charged to refused entry %s", message.id()).isZero();
      }
      var stats = outbox.store().stats(Instant.now());
      assertThat(stats.pending() + stats.quarantined()).as("entries left: the refused backlog, nothing healthy")
          .isEqualTo(REFUSED);
      if (quarantinedHeads.isEmpty()) {
        assertThat(chargedDestinations).as("destinations charged an attempt").doesNotContain(refusing);
      }
    }

    /** Waits until every refused entry arrived, first arrivals in key order. */
    void awaitRefused(ConsumerLedger ledger) {
      Set<UUID> ids = messageIds(refused);
      long start = System.nanoTime();
      await().atMost(BOUND).pollInterval(Duration.ofMillis(20)).until(() -> ledger.uniqueCount() >= REFUSED);
      await().atMost(BOUND).pollInterval(Duration.ofMillis(50)).until(() -> {
        var stats = outbox.store().stats(Instant.now());
        return stats.pending() + stats.quarantined() == 0;
      });
      System.out.printf(Locale.ROOT, "fault isolation %-28s refused %d drained %d ms after the fault was mended%n",
          transport.getClass().getSimpleName(), REFUSED, Duration.ofNanos(System.nanoTime() - start).toMillis());
      assertThat(ids).allMatch(this::delivered);
      ledger.assertReceivedExactly(refused);
    }

    void assertNoQuarantine() {
      assertThat(outbox.store().quarantined(QuarantineQuery.first(10))).isEmpty();
    }
  }

  /** Counts the relay's outage pauses: the whole relay waiting for a paused destination's probe. */
  private static final class OutageSleeps implements Sleeper {
    private final AtomicInteger count = new AtomicInteger();

    @Override
    public void sleep(Duration duration) throws InterruptedException {
      count.incrementAndGet();
      Sleeper.system().sleep(duration);
    }

    int count() {
      return count.get();
    }
  }

  private static List<Message> backlog(String destination, String keyPrefix, int count, int keys) {
    List<Message> messages = new ArrayList<>(count);
    int[] next = new int[keys];
    for (int i = 0; i < count; i++) {
      int key = i % keys;
      String orderingKey = keyPrefix + key;
      messages.add(Message.builder().withDestination(destination).withOrderingKey(orderingKey)
          .withPayload(orderingKey + ":" + next[key]++).withContentType("text/plain").build());
    }
    return messages;
  }

  private static Set<UUID> messageIds(List<Message> messages) {
    Set<UUID> ids = ConcurrentHashMap.newKeySet();
    messages.forEach(m -> ids.add(m.id()));
    return ids;
  }

  private static Set<UUID> entryIds(List<OutboxEntry> entries) {
    Set<UUID> ids = ConcurrentHashMap.newKeySet();
    entries.forEach(e -> ids.add(e.message().id()));
    return ids;
  }

  private <T extends AutoCloseable> T closeLater(T resource) {
    cleanup.add(resource);
    return resource;
  }

  /** What a consumer does with one arrival: the message id and the payload. */
  @FunctionalInterface
  private interface Arrival {
    void record(String messageId, byte[] payload);
  }

  // ------------------------------------------------------------------------------------------------ real receivers

  /** A real local webhook receiver: each path answers a status of the test's choosing and records what it took. */
  private final class Webhooks implements AutoCloseable {
    private final HttpServer server;
    private final Map<String, AtomicInteger> status = new ConcurrentHashMap<>();
    private final Map<String, Arrival> arrivals = new ConcurrentHashMap<>();

    Webhooks() {
      try {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      server.setExecutor(Executors.newFixedThreadPool(16));
      server.createContext("/", exchange -> {
        try (exchange) {
          byte[] body = exchange.getRequestBody().readAllBytes();
          String path = exchange.getRequestURI().getPath();
          int answer = status.computeIfAbsent(path, p -> new AtomicInteger(200)).get();
          if (answer / 100 == 2) {
            Arrival arrival = arrivals.get(path);
            if (arrival != null) {
              arrival.record(exchange.getRequestHeaders().getFirst(HttpTransport.MESSAGE_ID_HEADER), body);
            }
          }
          exchange.sendResponseHeaders(answer, -1);
        }
      });
      server.start();
      closeLater(this);
    }

    void onOk(String path, Arrival arrival) {
      arrivals.put(path, arrival);
    }

    void refuse(String path, int answer) {
      status.computeIfAbsent(path, p -> new AtomicInteger()).set(answer);
    }

    URI uri(String path) {
      return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    @Override
    public void close() {
      server.stop(0);
      ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
  }

  /** The shared RabbitMQ, touched only through queues and an exchange of this test's own, deleted afterwards. */
  private final class Rabbit implements AutoCloseable {
    static final int PORT = 5672;
    private final com.rabbitmq.client.Connection connection;
    private final Channel channel;
    private final List<String> queues = new CopyOnWriteArrayList<>();
    private final List<String> exchanges = new CopyOnWriteArrayList<>();

    Rabbit() throws Exception {
      ConnectionFactory factory = new ConnectionFactory();
      factory.setHost("127.0.0.1");
      factory.setPort(PORT);
      factory.setUsername("guest");
      factory.setPassword("guest");
      connection = factory.newConnection("outbox4j-test-fault-isolation");
      channel = connection.createChannel();
    }

    String queue(String role) throws IOException {
      String name = "o4j-iso-" + role + "-" + run;
      channel.queueDeclare(name, true, false, false, null);
      queues.add(name);
      return name;
    }

    void declareExchange(String exchange, String queue, String routingKey) throws IOException {
      channel.exchangeDeclare(exchange, "direct", false, true, null);
      exchanges.add(exchange);
      channel.queueBind(queue, exchange, routingKey);
    }

    void consume(String queue, Arrival arrival) throws IOException {
      Channel consumer = connection.createChannel();
      consumer.basicConsume(queue, true, new DefaultConsumer(consumer) {
        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
          arrival.record(properties.getMessageId(), body);
        }
      });
    }

    @Override
    public void close() throws Exception {
      for (String queue : queues) {
        channel.queueDelete(queue);
      }
      for (String exchange : exchanges) {
        channel.exchangeDelete(exchange);
      }
      connection.close();
    }
  }

  /** The shared NATS server, touched only through streams of this test's own, deleted afterwards. */
  private static final class Jetstream implements AutoCloseable {
    static final String SERVER = "nats://127.0.0.1:4222";
    final String space;
    final String captured;
    final String uncaptured;
    private final Connection connection;
    private final JetStreamManagement management;
    private final List<String> streams = new CopyOnWriteArrayList<>();

    Jetstream(String run) throws Exception {
      space = "o4jiso" + run.replace("-", "");
      captured = space + ".healthy";
      uncaptured = space + "x.refused";
      connection = Nats.connect(SERVER);
      management = connection.jetStreamManagement();
      addStream(streamName("HEALTHY"), captured);
    }

    private String streamName(String role) {
      return "O4J_ISO_" + role + "_" + space.toUpperCase(Locale.ROOT);
    }

    private void addStream(String name, String subject) throws Exception {
      management.addStream(StreamConfiguration.builder().name(name).subjects(subject)
          .storageType(StorageType.Memory).build());
      streams.add(name);
    }

    void captureUncaptured() throws Exception {
      addStream(streamName("REFUSED"), uncaptured);
    }

    void consume(String subject, Arrival arrival) throws Exception {
      subscribe(streamName("HEALTHY"), subject, arrival);
    }

    void consumeSecond(Arrival arrival) throws Exception {
      subscribe(streamName("REFUSED"), uncaptured, arrival);
    }

    private void subscribe(String stream, String subject, Arrival arrival) throws Exception {
      Dispatcher dispatcher = connection.createDispatcher();
      connection.jetStream().subscribe(subject, dispatcher, message -> arrival.record(
          message.getHeaders().getFirst(NatsTransport.MESSAGE_ID_HEADER), message.getData()), false,
          PushSubscribeOptions.builder().stream(stream).ordered(true).build());
    }

    @Override
    public void close() throws Exception {
      for (String stream : streams) {
        management.deleteStream(stream);
      }
      connection.close();
    }
  }
}
