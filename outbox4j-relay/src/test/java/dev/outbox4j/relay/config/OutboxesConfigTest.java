package dev.outbox4j.relay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code outboxes:} form of the relay configuration: several outboxes sharing transports, each its own lane. */
class OutboxesConfigTest {
  @TempDir Path dir;

  private static final String SHARED = String.join("\n",
      "relay:",
      "  batch-size: 50",
      "transports:",
      "  hooks:",
      "    type: http",
      "    endpoint.orders: http://127.0.0.1:9/orders",
      "    endpoint.invoices: http://127.0.0.1:9/invoices",
      "destinations:",
      "  orders: hooks",
      "");

  private Path file(String yaml) throws IOException {
    Path file = dir.resolve("relay.yaml");
    Files.writeString(file, yaml);
    return file;
  }

  @Test
  void each_outbox_has_its_own_database_and_settings_and_falls_back_to_the_top_level_ones() throws IOException {
    RelayConfig config = ConfigReader.read(file(SHARED + String.join("\n",
        "outboxes:",
        "  billing:",
        "    database:",
        "      url: jdbc:postgresql://127.0.0.1/billing",
        "      schema: billing",
        "    relay:",
        "      batch-size: 10",
        "    retry:",
        "      max-attempts: 3",
        "    destinations:",
        "      invoices: hooks",
        "  shipping:",
        "    database:",
        "      url: jdbc:mariadb://127.0.0.1/shipping",
        "      table-prefix: ship_",
        "")), List.of(), Map.of("OUTBOX4J_OUTBOXES_SHIPPING_DATABASE_PASSWORD", "secret"));
    assertThat(config.named()).isTrue();
    assertThat(config.outboxes().keySet()).containsExactly("billing", "shipping");
    RelayConfig.Outbox billing = config.outboxes().get("billing");
    assertThat(billing.database().schema()).isEqualTo("billing");
    assertThat(billing.relay().batchSize()).isEqualTo(10);
    assertThat(billing.retry().maxAttempts()).isEqualTo(3);
    assertThat(billing.destinations()).isEqualTo(Map.of("invoices", "hooks"));
    RelayConfig.Outbox shipping = config.outboxes().get("shipping");
    assertThat(shipping.relay().batchSize()).as("the top-level default").isEqualTo(50);
    assertThat(shipping.destinations()).as("the top-level destinations").isEqualTo(Map.of("orders", "hooks"));
    assertThat(shipping.database().tablePrefix()).isEqualTo("ship_");
    assertThat(shipping.database().password()).isEqualTo("secret");
    RelayConfig alone = config.outbox("shipping");
    assertThat(alone.database().url()).isEqualTo("jdbc:mariadb://127.0.0.1/shipping");
    assertThat(alone.outboxes().keySet()).containsExactly("shipping");
    assertThat(alone.transports()).containsOnlyKeys("hooks");
  }

  @Test
  void the_single_outbox_form_is_one_outbox_named_default() throws IOException {
    RelayConfig config = ConfigReader.read(file(SHARED + "database:\n  url: jdbc:h2:mem:x\n"), List.of(), Map.of());
    assertThat(config.named()).isFalse();
    assertThat(config.outboxes().keySet()).containsExactly(RelayConfig.DEFAULT_OUTBOX);
    assertThat(config.outbox(RelayConfig.DEFAULT_OUTBOX).database().url()).isEqualTo("jdbc:h2:mem:x");
  }

  @Test
  void a_bad_outbox_name_an_unknown_section_and_a_top_level_url_are_refused_naming_the_key() {
    assertThatThrownBy(() -> ConfigReader.read(
        file(SHARED + "outboxes:\n  Billing_1:\n    database.url: jdbc:h2:mem:x\n"), List.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'outboxes.Billing_1.database.url' has an invalid outbox name 'Billing_1'");
    assertThatThrownBy(() -> ConfigReader.read(file(SHARED + "outboxes:\n  billing:\n    server.port: 1\n"),
        List.of(), Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("'outboxes.billing.server.port' is not a key an outbox takes");
    assertThatThrownBy(() -> ConfigReader.read(file(SHARED
        + "database.url: jdbc:h2:mem:y\noutboxes:\n  billing:\n    database.url: jdbc:h2:mem:x\n"),
        List.of(), Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("'database.url' cannot be given at top level together with 'outboxes'");
    assertThatThrownBy(() -> ConfigReader.read(file(SHARED + "outboxes:\n  billing:\n    relay.batch-size: 0\n"
        + "    database.url: jdbc:h2:mem:x\n"), List.of(), Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("'outboxes.billing.relay.batch-size' must be an integer from 1 to 10000");
    assertThatThrownBy(() -> ConfigReader.read(file(SHARED + "outboxes:\n  billing:\n    relay.batch-size: 5\n"),
        List.of(), Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("'outboxes.billing.database.url' is required")
        .hasMessageContaining("OUTBOX4J_OUTBOXES_BILLING_DATABASE_URL");
    assertThatThrownBy(() -> ConfigReader.read(file(SHARED + "outboxes:\n  a:\n    database.url: jdbc:h2:mem:x\n"
        + "  b:\n    database.url: jdbc:h2:mem:x\n"), List.of(), Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("'outboxes.b.database' names the same outbox table as outboxes.a");
    assertThatThrownBy(() -> ConfigReader.read(file(SHARED + "outboxes:\n  billing:\n    database.url: jdbc:h2:mem:x\n"
        + "    destinations.orders: nowhere\n"), List.of(), Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("'outboxes.billing.destinations.orders' names transport 'nowhere'");
  }

  @Test
  void an_unknown_outbox_variable_is_refused_and_an_unknown_outbox_name_is_refused_listing_the_configured()
      throws IOException {
    Path file = file(SHARED + "outboxes:\n  billing:\n    database.url: jdbc:h2:mem:x\n");
    assertThatThrownBy(() -> ConfigReader.read(file, List.of(), Map.of("OUTBOX4J_OUTBOXES_OTHER_DATABASE_URL", "x")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("names no configuration key");
    RelayConfig config = ConfigReader.read(file, List.of(), Map.of());
    assertThatThrownBy(() -> config.outbox("shipping")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("names no outbox of this configuration (configured: billing;");
  }

  @Test
  void a_tenants_entry_takes_a_pattern_or_a_query_and_names_its_tenants_entry_colon_schema() throws IOException {
    RelayConfig config = ConfigReader.read(file(SHARED + String.join("\n",
        "outboxes:",
        "  tenants:",
        "    database.url: jdbc:postgresql://127.0.0.1/app",
        "    tenants:",
        "      schemas: 'tenant_[0-9]+'",
        "      rediscover: 5s",
        "")), List.of(), Map.of());
    RelayConfig.Tenants tenants = config.outboxes().get("tenants").tenants();
    assertThat(tenants.schemas().pattern()).isEqualTo("tenant_[0-9]+");
    assertThat(tenants.rediscover()).isEqualTo(Duration.ofSeconds(5));
    RelayConfig one = config.outbox("tenants:tenant_7");
    assertThat(one.database().schema()).isEqualTo("tenant_7");
    assertThat(one.firstOutboxName()).isEqualTo("tenants:tenant_7");
    assertThatThrownBy(() -> config.outbox("tenants")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("lists tenants: name one of them as tenants:SCHEMA");
    assertThatThrownBy(() -> ConfigReader.read(file(SHARED + "outboxes:\n  t:\n    database.url: jdbc:h2:mem:x\n"
        + "    tenants.schemas: 'tenant_('\n"), List.of(), Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("'outboxes.t.tenants.schemas' must be a regular expression");
    assertThatThrownBy(() -> ConfigReader.read(file(SHARED + "outboxes:\n  t:\n    database.url: jdbc:h2:mem:x\n"
        + "    tenants.schemas: 'a'\n    tenants.query: 'SELECT 1'\n"), List.of(), Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("'outboxes.t.tenants.query' and tenants.schemas"
            + " exclude each other");
    assertThatThrownBy(() -> ConfigReader.read(file(SHARED + "outboxes:\n  t:\n    database.url: jdbc:h2:mem:x\n"
        + "    database.schema: s\n    tenants.schemas: 'a'\n"), List.of(), Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("'outboxes.t.database.schema' cannot be given with"
            + " tenants");
  }
}
