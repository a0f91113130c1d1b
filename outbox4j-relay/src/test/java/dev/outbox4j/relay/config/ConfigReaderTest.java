package dev.outbox4j.relay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.relay.runtime.RoutingTransport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigReaderTest {
  @TempDir Path dir;

  private Path file(String yaml) throws IOException {
    Path file = dir.resolve("relay.yaml");
    Files.writeString(file, yaml);
    return file;
  }

  private static final String MINIMAL = "database:\n  url: jdbc:h2:mem:x\n";
  private static final String HOOK_SECRET = "whsec_b3V0Ym94NGotcmVsYXktY29uZmlnLXRlc3Q=";

  @Test
  void defaults_apply_to_every_key_the_file_leaves_out() throws IOException {
    RelayConfig config = ConfigReader.read(file(MINIMAL), List.of(), Map.of());
    assertThat(config.relay().batchSize()).isEqualTo(200);
    assertThat(config.relay().lease()).as("left to the relay, which fits it to the transports").isNull();
    assertThat(config.relay().deliveryTimeout()).isNull();
    assertThat(config.retry().policy()).isEqualTo("exponential");
    assertThat(config.retry().maxAttempts()).as("no attempt limit: the time budget decides").isNull();
    assertThat(config.retry().giveUpAfter()).isEqualTo(Duration.ofHours(24));
    assertThat(config.server().bind()).isEqualTo("127.0.0.1");
    assertThat(config.server().port()).isEqualTo(8080);
    assertThat(config.server().showPayloads()).isFalse();
    assertThat(config.database().tablePrefix()).isEqualTo("outbox4j_");
    assertThat(config.database().keepDelivered()).isNull();
    assertThat(config.database().claims()).as("the database's default").isNull();
  }

  @Test
  void the_claim_strategy_is_read_from_the_file_or_the_environment_and_reaches_the_store() throws IOException {
    RelayConfig fromFile = ConfigReader.read(file(MINIMAL + "  claims: leased-batches\n"), List.of(), Map.of());
    assertThat(fromFile.database().claims()).isEqualTo(ClaimStrategy.LEASED_BATCHES);
    RelayConfig fromEnvironment = ConfigReader.read(file(MINIMAL + "  claims: leased-batches\n"), List.of(),
        Map.of("OUTBOX4J_DATABASE_CLAIMS", "leased-rows"));
    assertThat(fromEnvironment.database().claims()).isEqualTo(ClaimStrategy.LEASED_ROWS);
    try (JdbcOutboxStore store = RelayAssembly.store(new JdbcDataSource(), fromEnvironment.database())) {
      assertThat(store.claimStrategy()).isEqualTo(ClaimStrategy.LEASED_ROWS);
    }
    assertThatThrownBy(() -> ConfigReader.read(file(MINIMAL + "  claims: session-locks\n"), List.of(), Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("'session-locks' was removed")
        .hasMessageContaining("leased-batches");
  }

  @Test
  void prepared_statements_are_off_unless_asked_for_and_reach_the_store() throws IOException {
    RelayConfig byDefault = ConfigReader.read(file(MINIMAL), List.of(), Map.of());
    assertThat(byDefault.database().preparedStatements()).isFalse();
    try (JdbcOutboxStore store = RelayAssembly.store(new JdbcDataSource(), byDefault.database())) {
      assertThat(store.preparedStatements()).isFalse();
    }
    RelayConfig asked = ConfigReader.read(file(MINIMAL + "  prepared-statements: true\n"), List.of(), Map.of());
    try (JdbcOutboxStore store = RelayAssembly.store(new JdbcDataSource(), asked.database())) {
      assertThat(store.preparedStatements()).isTrue();
    }
    assertThatThrownBy(() -> ConfigReader.read(file(MINIMAL), List.of(),
        Map.of("OUTBOX4J_DATABASE_PREPARED_STATEMENTS", "yes")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("'database.prepared-statements'");
  }

  @Test
  void the_admin_token_has_a_name_for_the_audit_log_admin_unless_configured_and_a_bad_name_is_refused()
      throws IOException {
    assertThat(ConfigReader.read(file(MINIMAL), List.of(), Map.of()).server().adminTokenName()).isEqualTo("admin");
    assertThat(ConfigReader.read(file(MINIMAL + "server:\n  admin-token-name: ops-alice\n"), List.of(), Map.of())
        .server().adminTokenName()).isEqualTo("ops-alice");
    assertThat(ConfigReader.read(file(MINIMAL), List.of(), Map.of("OUTBOX4J_SERVER_ADMIN_TOKEN_NAME", "oncall@acme"))
        .server().adminTokenName()).isEqualTo("oncall@acme");
    assertThatThrownBy(() -> ConfigReader.read(file(MINIMAL + "server:\n  admin-token-name: 'two words'\n"),
        List.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'server.admin-token-name' must be 1 to 64 letters, digits or . _ @ -, was 'two words'");
  }

  @Test
  void an_unknown_claim_strategy_is_refused_with_the_values_it_may_take() throws IOException {
    Path file = file(MINIMAL + "  claims: advisory\n");
    assertThatThrownBy(() -> ConfigReader.read(file, List.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(file + " line 3: 'database.claims' must be one of [default, leased-rows, leased-batches], was"
            + " 'advisory'");
    assertThatThrownBy(() -> ConfigReader.read(file(MINIMAL), List.of(), Map.of("OUTBOX4J_DATABASE_CLAIMS",
        "LEASED_ROWS")))
        .hasMessage("environment OUTBOX4J_DATABASE_CLAIMS: 'database.claims' must be one of [default, leased-rows,"
            + " leased-batches], was 'LEASED_ROWS'");
  }

  @Test
  void every_fixed_key_can_be_set_from_the_environment_and_the_environment_wins_over_the_file() throws IOException {
    Path file = file(MINIMAL + "relay:\n  batch-size: 50\n");
    RelayConfig config = ConfigReader.read(file, List.of(), Map.of(
        "OUTBOX4J_RELAY_BATCH_SIZE", "75",
        "OUTBOX4J_DATABASE_PASSWORD", "s3cret-from-env",
        "OUTBOX4J_SERVER_ADMIN_TOKEN", "0123456789abcdef0123",
        "OUTBOX4J_RETRY_MAX_ATTEMPTS", "4",
        "PATH", "/usr/bin"));
    assertThat(config.relay().batchSize()).isEqualTo(75);
    assertThat(config.database().password()).isEqualTo("s3cret-from-env");
    assertThat(config.server().adminToken()).isEqualTo("0123456789abcdef0123");
    assertThat(config.retry().maxAttempts()).isEqualTo(4);
    assertThat(config.toString()).doesNotContain("s3cret-from-env", "0123456789abcdef0123");
    for (String key : ConfigReader.KEYS.keySet()) {
      assertThat(ConfigReader.environmentName(key)).matches("OUTBOX4J_[A-Z0-9_]+");
    }
  }

  @Test
  void a_transport_secret_can_come_from_the_environment_only() throws IOException {
    Path file = file(MINIMAL + "transports:\n  events:\n    type: rabbitmq\n    host: 127.0.0.1\n"
        + "  hooks:\n    type: http\ndestinations:\n  orders/created: events\n  orders: hooks\n");
    RelayConfig config = ConfigReader.read(file, List.of(), Map.of(
        "OUTBOX4J_TRANSPORTS_EVENTS_PASSWORD", "guest",
        "OUTBOX4J_TRANSPORTS_HOOKS_ENDPOINT_ORDERS", "http://127.0.0.1:9/orders",
        "OUTBOX4J_TRANSPORTS_HOOKS_SIGNING_SECRET", HOOK_SECRET));
    assertThat(config.transports().get("events").properties()).containsEntry("password", "guest")
        .containsEntry("host", "127.0.0.1");
    assertThat(config.transports().get("hooks").properties()).containsEntry("endpoint.orders",
        "http://127.0.0.1:9/orders").containsEntry("signing-secret", HOOK_SECRET);
    assertThat(config.destinations()).containsEntry("orders/created", "events").containsEntry("orders", "hooks");
    try (RoutingTransport transport = RelayAssembly.transport(config)) {
      assertThat(transport.destinations()).containsExactlyInAnyOrder("orders", "orders/created");
    }
  }

  @Test
  void a_cloudevents_section_maps_destinations_binary_by_default_and_names_a_missing_or_wrong_value()
      throws IOException {
    Path file = file(MINIMAL + "cloudevents:\n  orders.created:\n    source: /shop\n    type: com.example.order\n"
        + "  invoices:\n    source: /billing\n    type: com.example.invoice\n    mode: structured\n");
    RelayConfig config = ConfigReader.read(file, List.of(), Map.of());
    assertThat(config.cloudEvents()).containsEntry("orders.created",
        CloudEventsMapping.binary("/shop", "com.example.order")).containsEntry("invoices",
        CloudEventsMapping.structured("/billing", "com.example.invoice"));

    Path noType = file(MINIMAL + "cloudevents:\n  orders:\n    source: /shop\n");
    assertThatThrownBy(() -> ConfigReader.read(noType, List.of(), Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("cloudevents.orders.type").hasMessageContaining("required");
    Path badMode = file(MINIMAL + "cloudevents:\n  orders:\n    source: /shop\n    type: t\n    mode: batch\n");
    assertThatThrownBy(() -> ConfigReader.read(badMode, List.of(), Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("cloudevents.orders.mode").hasMessageContaining("batch");
  }

  @Test
  void an_unknown_key_is_refused_with_its_file_line_and_the_keys_of_its_section() throws IOException {
    Path file = file(MINIMAL + "retry:\n  max-attempt: 3\n");
    assertThatThrownBy(() -> ConfigReader.read(file, List.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(file + " line 4: 'retry.max-attempt' is not a known key (known in this section: [retry.policy, "
            + "retry.base, retry.multiplier, retry.cap, retry.max-attempts, retry.give-up-after, retry.jitter])");
  }

  @Test
  void a_wrong_type_is_refused_with_the_value_unless_the_key_may_hold_a_secret() throws IOException {
    assertThatThrownBy(() -> ConfigReader.read(file(MINIMAL + "relay:\n  lease: soon\n"), List.of(), Map.of()))
        .hasMessageContaining("line 4: 'relay.lease' must be a positive duration such as 250ms, 10s, 5m, 1h, 7d "
            + "or PT10S, was 'soon'");
    assertThatThrownBy(() -> ConfigReader.read(file(MINIMAL), List.of(),
        Map.of("OUTBOX4J_SERVER_ADMIN_TOKEN", "short-secret")))
        .hasMessage("environment OUTBOX4J_SERVER_ADMIN_TOKEN: 'server.admin-token' must be at least 16 characters "
            + "long")
        .message().doesNotContain("short-secret");
  }

  @Test
  void a_transport_whose_module_refuses_its_properties_is_named() throws IOException {
    Path file = file(MINIMAL + "transports:\n  events:\n    type: rabbitmq\n    port: not-a-port\n"
        + "    password: hunter2\ndestinations:\n  '*': events\n");
    RelayConfig config = ConfigReader.read(file, List.of(), Map.of());
    assertThatThrownBy(() -> RelayAssembly.transport(config))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(file + " line 5: 'transports.events' is refused by its rabbitmq transport: "
            + "rabbitmq property 'port' must be an integer, was 'not-a-port'")
        .message().doesNotContain("hunter2");
  }

  @Test
  void a_missing_database_url_names_the_environment_variable_that_could_give_it() throws IOException {
    assertThatThrownBy(() -> ConfigReader.read(file("relay:\n  workers: 2\n"), List.of(), Map.of()))
        .hasMessage(dir.resolve("relay.yaml") + ": 'database.url' is required (set it in the file or as "
            + "OUTBOX4J_DATABASE_URL)");
  }

  @Test
  void an_environment_variable_that_names_no_key_is_refused_rather_than_ignored() throws IOException {
    assertThatThrownBy(() -> ConfigReader.read(file(MINIMAL), List.of(), Map.of("OUTBOX4J_RELAY_BATCHSIZE", "5")))
        .hasMessageStartingWith("environment: 'OUTBOX4J_RELAY_BATCHSIZE' names no configuration key");
  }

  @Test
  void a_destination_must_name_a_declared_transport_and_a_transport_must_have_a_type() throws IOException {
    assertThatThrownBy(() -> ConfigReader.read(file(MINIMAL + "destinations:\n  orders: kafka\n"), List.of(),
        Map.of()))
        .hasMessageContaining("line 4: 'destinations.orders' names transport 'kafka', which is not declared");
    assertThatThrownBy(() -> ConfigReader.read(file(MINIMAL + "transports:\n  events:\n    host: x\n"), List.of(),
        Map.of()))
        .hasMessageContaining("'transports.events.type' is required");
  }

  @Test
  void malformed_yaml_and_a_repeated_key_are_named_by_line() throws IOException {
    assertThatThrownBy(() -> ConfigReader.read(file(MINIMAL + "relay: [unclosed\n"), List.of(), Map.of()))
        .hasMessageContaining("is not valid YAML");
    assertThatThrownBy(() -> ConfigReader.read(file(MINIMAL + "relay:\n  workers: 2\n  workers: 3\n"), List.of(),
        Map.of()))
        .hasMessageContaining("line 5: 'relay.workers' is given twice (also at " + dir.resolve("relay.yaml")
            + " line 4)");
  }

  @Test
  void the_retry_settings_become_the_library_policy() throws IOException {
    RelayConfig config = ConfigReader.read(file(MINIMAL + "retry:\n  policy: linear\n  base: 2s\n  cap: 10s\n"
        + "  max-attempts: 3\n"), List.of(), Map.of());
    var policy = RelayAssembly.retryPolicy(config.retry());
    assertThat(policy.maxAttempts()).isEqualTo(3);
    assertThat(policy.delayAfter(1, 0.5)).isEqualTo(Duration.ofSeconds(2));
    assertThat(policy.delayAfter(9, 0.5)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void a_url_with_credentials_is_displayed_without_them() {
    assertThat(RelayConfig.Database.displayable("jdbc:postgresql://u:pw@db:5432/app?password=x&ssl=true"))
        .isEqualTo("jdbc:postgresql://db:5432/app");
    assertThat(RelayConfig.Database.displayable("jdbc:h2:file:/tmp/x;PASSWORD=y")).isEqualTo("jdbc:h2:file:/tmp/x");
  }
}
