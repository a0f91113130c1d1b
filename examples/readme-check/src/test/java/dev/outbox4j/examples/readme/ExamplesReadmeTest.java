package dev.outbox4j.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.outbox4j.jdbc.testing.RunDatabases;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Both examples as their READMEs run them, one after the other on one RabbitMQ (a virtual host of this run's own, so
 * the examples keep their real names) and one PostgreSQL database: the Spring Boot example twice (the second time with
 * the loyalty queue bound, the README's fix for the quarantined entry), the Modulith example twice, then the Spring
 * Boot example again. At every start what the README promises holds whatever the earlier starts left: the demo orders
 * are placed and a refused one leaves nothing; the web API and Actuator answer; the Spring Boot example bills its own
 * orders and nothing else, and adds one quarantined loyalty entry unless the loyalty queue is bound (the binding a
 * previous start made does not outlive it); the Modulith example's events wait in its own queue and nothing else does.
 * At the end each example's database objects carry its prefix.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExamplesReadmeTest {
  private static final Path EXAMPLES = Path.of(System.getProperty("examples.directory", ".."));
  private static final Duration START = Duration.ofMinutes(3);
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final Pattern PLACED = Pattern.compile("placed (order-[0-9a-f-]{36}) and (order-[0-9a-f-]{36})");
  private static final Pattern BILLED = Pattern.compile("billed order (order-[0-9a-f-]{36})");

  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private final String database = RunDatabases.postgresUrl();
  private RunVirtualHost virtualHost;
  private Connection rabbit;

  @BeforeAll
  void virtualHost() throws Exception {
    virtualHost = RunVirtualHost.create();
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    factory.setVirtualHost(virtualHost.name());
    rabbit = factory.newConnection();
  }

  @AfterAll
  void deleteVirtualHost() throws Exception {
    try {
      if (rabbit != null) {
        rabbit.close();
      }
    } finally {
      if (virtualHost != null) {
        virtualHost.close();
      }
    }
  }

  @Test
  void each_start_keeps_its_readme_promises_whatever_the_earlier_starts_of_either_example_left() throws Exception {
    Set<String> bootOrders = new HashSet<>();
    Set<String> modulithOrders = new HashSet<>();
    List<String> loyaltyDelivered = new ArrayList<>();

    String firstQuarantined = runBoot("boot-1", false, bootOrders, loyaltyDelivered);
    runBoot("boot-2", true, bootOrders, loyaltyDelivered);
    runModulith("modulith-1", modulithOrders);
    runModulith("modulith-2", modulithOrders);
    runBoot("boot-3", false, bootOrders, loyaltyDelivered);

    assertThat(loyaltyDelivered).as("boot-2 delivers its own loyalty event and, requeued, boot-1's")
        .contains(firstQuarantined).hasSize(2);
    assertThat(column("SELECT order_id FROM boot_invoices")).as("billed: every Spring Boot order, and nothing else")
        .containsExactlyInAnyOrderElementsOf(bootOrders);
    assertThat(column("SELECT id FROM boot_orders")).containsExactlyInAnyOrderElementsOf(bootOrders);
    assertThat(column("SELECT id FROM modulith_orders")).containsExactlyInAnyOrderElementsOf(modulithOrders);
    assertThat(drain("modulith-orders.placed", "orderId"))
        .as("waiting in modulith-orders.placed: every Modulith order's event, and nothing else")
        .containsExactlyInAnyOrderElementsOf(modulithOrders);
    assertThat(column("SELECT table_schema || '.' || table_name FROM information_schema.tables"
        + " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"))
        .as("each example's tables carry its prefix (Modulith's fixed event_publication in schema modulith_events)")
        .contains("public.boot_outbox", "public.boot_inbox", "public.modulith_outbox",
            "modulith_events.event_publication")
        .allMatch(table -> table.startsWith("public.boot_") || table.startsWith("public.modulith_")
            || table.equals("modulith_events.event_publication"));
  }

  /**
   * One start of the Spring Boot example on this run's database and virtual host.
   *
   * @return the id of the order whose loyalty event this start quarantined, or {@code null} with the queue bound
   */
  private String runBoot(String name, boolean loyaltyBound, Set<String> bootOrders, List<String> loyaltyDelivered)
      throws Exception {
    List<String> arguments = new ArrayList<>(List.of("--spring.datasource.url=" + database,
        "--spring.rabbitmq.virtual-host=" + virtualHost.name()));
    if (loyaltyBound) {
      arguments.add("--orders.loyalty-bound=true");
    }
    String quarantined = null;
    try (ExampleProcess boot = ExampleProcess.start(EXAMPLES.resolve("spring-boot-orders"),
        "dev.outbox4j.examples.orders.OrdersApplication", name, arguments)) {
      Matcher placed = boot.awaitLine(PLACED, START);
      String first = placed.group(1);
      bootOrders.addAll(List.of(first, placed.group(2)));
      boot.awaitLine(Pattern.compile("billed order " + first), PATIENCE);
      boot.awaitLine(Pattern.compile("billed order " + placed.group(2)), PATIENCE);
      String base = boot.baseUrl();

      HttpResponse<String> order = placeOverHttp(base);
      bootOrders.add(json.readTree(order.body()).get("orderId").asText());
      String location = order.headers().firstValue("Location").orElseThrow();
      await("order " + location + " billed").atMost(PATIENCE)
          .until(() -> json.readTree(send("GET", base + location).body()).get("billed").asBoolean());
      refusesANegativeTotalAndIsHealthy(base);
      HttpResponse<String> prometheus = send("GET", base + "/actuator/prometheus");
      assertThat(prometheus.statusCode()).isEqualTo(200);
      assertThat(prometheus.body()).contains("outbox4j_delivered_total", "outbox4j_quarantined_total");

      if (loyaltyBound) {
        await("the loyalty event for " + first + " in boot-orders.loyalty").atMost(PATIENCE).until(() -> {
          loyaltyDelivered.addAll(drain("boot-orders.loyalty", "orderId"));
          return loyaltyDelivered.contains(first);
        });
        for (JsonNode entry : quarantined(base)) {
          HttpResponse<String> requeued = send("POST", base + "/actuator/outbox4j/" + entry.get("id").asText());
          assertThat(requeued.statusCode()).as(requeued.body()).isBetween(200, 299);
        }
        await("the requeued entries delivered").atMost(PATIENCE).until(() -> quarantined(base).isEmpty());
        await("the requeued loyalty events in boot-orders.loyalty").atMost(PATIENCE).until(() -> {
          loyaltyDelivered.addAll(drain("boot-orders.loyalty", "orderId"));
          return loyaltyDelivered.size() == 2;
        });
      } else {
        await("a quarantined loyalty entry for " + first).atMost(PATIENCE).until(() -> !quarantined(base).isEmpty());
        List<JsonNode> entries = quarantined(base);
        assertThat(entries).as("the quarantined entry of this start, and no other").singleElement().satisfies(entry -> {
          assertThat(entry.get("orderingKey").asText()).isEqualTo(first);
          assertThat(entry.get("destination").asText()).isEqualTo("boot-orders/loyalty");
          assertThat(entry.get("reason").asText()).contains("NO_ROUTE");
        });
        quarantined = first;
      }
      await("every Spring Boot order billed").atMost(PATIENCE)
          .until(() -> column("SELECT order_id FROM boot_invoices").containsAll(bootOrders));
      assertThat(boot.lines(BILLED)).extracting(billed -> billed.group(1)).as("the orders it logged as billed")
          .isSubsetOf(bootOrders);
    }
    return quarantined;
  }

  /** One start of the Modulith example on this run's database and virtual host. */
  private void runModulith(String name, Set<String> modulithOrders) throws Exception {
    List<String> arguments = List.of("--spring.datasource.url=" + database,
        "--outbox4j.transport.rabbitmq.virtual-host=" + virtualHost.name());
    try (ExampleProcess modulith = ExampleProcess.start(EXAMPLES.resolve("spring-modulith-orders"),
        "dev.outbox4j.examples.modulith.ModulithOrdersApplication", name, arguments)) {
      Matcher placed = modulith.awaitLine(PLACED, START);
      Set<String> ordersOfThisStart = new HashSet<>(List.of(placed.group(1), placed.group(2)));
      String base = modulith.baseUrl();

      HttpResponse<String> order = placeOverHttp(base);
      ordersOfThisStart.add(json.readTree(order.body()).get("orderId").asText());
      HttpResponse<String> read = send("GET", base + order.headers().firstValue("Location").orElseThrow());
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(json.readTree(read.body()).get("totalCents").asLong()).isEqualTo(700);
      refusesANegativeTotalAndIsHealthy(base);

      await("shipments for " + ordersOfThisStart).atMost(PATIENCE)
          .until(() -> column("SELECT order_id FROM modulith_shipments").containsAll(ordersOfThisStart));
      await("the outbox emptied by delivery").atMost(PATIENCE)
          .until(() -> column("SELECT id FROM modulith_outbox").isEmpty());
      assertThat(quarantined(base)).isEmpty();
      modulithOrders.addAll(ordersOfThisStart);
    }
  }

  /** Places an order of 700 cents through the web API, which answers 201 with the order and its location. */
  private HttpResponse<String> placeOverHttp(String base) throws IOException, InterruptedException {
    HttpResponse<String> order = send("POST", base + "/orders?totalCents=700");
    assertThat(order.statusCode()).as(order.body()).isEqualTo(201);
    return order;
  }

  /** The web API refuses a negative total with 400 and the reason; health is UP with the outbox4j indicator. */
  private void refusesANegativeTotalAndIsHealthy(String base) throws IOException, InterruptedException {
    HttpResponse<String> refused = send("POST", base + "/orders?totalCents=-5");
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.body()).contains("negative total");
    HttpResponse<String> health = send("GET", base + "/actuator/health");
    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    assertThat(json.readTree(health.body()).at("/components/outbox4j/status").asText()).isEqualTo("UP");
  }

  private List<JsonNode> quarantined(String base) throws IOException, InterruptedException {
    HttpResponse<String> listed = send("GET", base + "/actuator/outbox4j");
    assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
    List<JsonNode> entries = new ArrayList<>();
    json.readTree(listed.body()).get("entries").forEach(entries::add);
    return entries;
  }

  /** Takes every message waiting in {@code queue} and returns the {@code field} of each JSON body. */
  private List<String> drain(String queue, String field) throws IOException, TimeoutException {
    List<String> values = new ArrayList<>();
    try (Channel channel = rabbit.createChannel()) {
      for (GetResponse message = channel.basicGet(queue, true); message != null;
          message = channel.basicGet(queue, true)) {
        values.add(json.readTree(message.getBody()).get(field).asText());
      }
    }
    return values;
  }

  private List<String> column(String query) throws SQLException {
    List<String> values = new ArrayList<>();
    try (java.sql.Connection connection = DriverManager.getConnection(database);
        Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(query)) {
      while (rows.next()) {
        values.add(rows.getString(1));
      }
    }
    return values;
  }

  private HttpResponse<String> send(String method, String url) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(url)).method(method, HttpRequest.BodyPublishers.noBody())
        .build(), HttpResponse.BodyHandlers.ofString());
  }
}
