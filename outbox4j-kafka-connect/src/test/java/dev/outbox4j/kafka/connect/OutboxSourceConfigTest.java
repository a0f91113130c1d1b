package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

/** The connector's settings as Connect validates them: each bad value is reported on its own key, with the reason. */
class OutboxSourceConfigTest {

  private static Map<String, String> valid() {
    Map<String, String> settings = new HashMap<>();
    settings.put("connector.class", OutboxSourceConnector.class.getName());
    settings.put("name", "outbox");
    settings.put("tasks.max", "2");
    settings.put(OutboxSourceConfig.JDBC_URL, "jdbc:postgresql://127.0.0.1:5432/app");
    return settings;
  }

  private static List<String> errorsOf(Map<String, String> settings, String key) {
    Config config = new OutboxSourceConnector().validate(settings);
    return config.configValues().stream().filter(value -> value.name().equals(key)).findFirst()
        .map(ConfigValue::errorMessages).orElseThrow(() -> new AssertionError("no value for " + key));
  }

  private static long keysWithErrors(Map<String, String> settings) {
    return new OutboxSourceConnector().validate(settings).configValues().stream()
        .filter(value -> !value.errorMessages().isEmpty()).count();
  }

  @Test
  void the_defaults_with_a_jdbc_url_are_valid() {
    assertThat(keysWithErrors(valid())).isZero();
    OutboxSourceConfig config = new OutboxSourceConfig(valid());
    assertThat(config.topicMapping().topicOf("orders")).isEqualTo("orders");
    assertThat(config.batchSize()).isEqualTo(500);
    assertThat(config.leaseMs()).isEqualTo(300_000L);
    assertThat(config.preparedStatements()).as("every statement unnamed, safe through any pooler").isFalse();
  }

  @Test
  void prepared_statements_are_a_boolean_reported_on_their_key() {
    Map<String, String> settings = valid();
    settings.put(OutboxSourceConfig.PREPARED_STATEMENTS, "true");
    assertThat(new OutboxSourceConfig(settings).preparedStatements()).isTrue();
    settings.put(OutboxSourceConfig.PREPARED_STATEMENTS, "sometimes");
    assertThat(errorsOf(settings, OutboxSourceConfig.PREPARED_STATEMENTS)).singleElement().asString()
        .contains(OutboxSourceConfig.PREPARED_STATEMENTS);
  }

  @Test
  void a_missing_jdbc_url_is_reported_on_its_key() {
    Map<String, String> settings = valid();
    settings.remove(OutboxSourceConfig.JDBC_URL);
    assertThat(errorsOf(settings, OutboxSourceConfig.JDBC_URL)).singleElement().asString()
        .contains(OutboxSourceConfig.JDBC_URL);
  }

  @Test
  void a_batch_size_out_of_range_is_reported_on_its_key_with_the_range() {
    Map<String, String> settings = valid();
    settings.put(OutboxSourceConfig.BATCH_SIZE, "0");
    assertThat(errorsOf(settings, OutboxSourceConfig.BATCH_SIZE)).singleElement().asString()
        .contains("batch.size").contains("at least 1");
    assertThat(keysWithErrors(settings)).isEqualTo(1);
  }

  @Test
  void a_topic_mapping_entry_without_a_legal_topic_is_reported_on_the_mapping() {
    Map<String, String> settings = valid();
    settings.put(OutboxSourceConfig.TOPIC_MAPPING, "orders=orders.v1,payments=pay ments");
    assertThat(errorsOf(settings, OutboxSourceConfig.TOPIC_MAPPING)).singleElement().asString()
        .contains("payments=pay ments").contains("characters other than");
    settings.put(OutboxSourceConfig.TOPIC_MAPPING, "orders");
    assertThat(errorsOf(settings, OutboxSourceConfig.TOPIC_MAPPING)).singleElement().asString()
        .contains("destination=topic");
  }

  @Test
  void the_mapping_wins_over_the_pattern() {
    Map<String, String> settings = valid();
    settings.put(OutboxSourceConfig.TOPIC_MAPPING, "orders=orders.v1");
    settings.put(OutboxSourceConfig.TOPIC_PATTERN, "app.${destination}");
    TopicMapping topics = new OutboxSourceConfig(settings).topicMapping();
    assertThat(topics.topicOf("orders")).isEqualTo("orders.v1");
    assertThat(topics.topicOf("payments")).isEqualTo("app.payments");
  }

  @Test
  void a_lease_shorter_than_the_transaction_timeout_and_its_margin_is_reported_on_lease_ms() {
    Map<String, String> settings = valid();
    settings.put(OutboxSourceConfig.LEASE_MS, "60000");
    assertThat(errorsOf(settings, OutboxSourceConfig.LEASE_MS)).singleElement().asString()
        .contains("lease.ms (60000)").contains("transaction.timeout.ms (60000)");
    settings.put("producer.override.transaction.timeout.ms", "20000");
    assertThat(errorsOf(settings, OutboxSourceConfig.LEASE_MS)).isEmpty();
    settings.remove("producer.override.transaction.timeout.ms");
    assertThatThrownBy(() -> new OutboxSourceConfig(settings)).isInstanceOf(ConfigException.class)
        .hasMessageContaining(OutboxSourceConfig.LEASE_MS);
  }

  @Test
  void more_tasks_than_settle_slots_is_reported_on_settle_slots() {
    Map<String, String> settings = valid();
    settings.put("tasks.max", "8");
    settings.put(OutboxSourceConfig.SETTLE_SLOTS, "4");
    assertThat(errorsOf(settings, OutboxSourceConfig.SETTLE_SLOTS)).singleElement().asString()
        .contains("tasks.max (8)");
  }

  @Test
  void errors_tolerance_all_is_refused_because_a_skipped_record_would_be_retired() {
    Map<String, String> settings = valid();
    settings.put("errors.tolerance", "all");
    assertThat(errorsOf(settings, "errors.tolerance")).singleElement().asString().contains("must be none");
  }

  @Test
  void every_key_is_documented() {
    OutboxSourceConfig.CONFIG_DEF.configKeys().values()
        .forEach(key -> assertThat(key.documentation).as(key.name).isNotBlank());
  }

  @Test
  void each_task_gets_its_own_slot() {
    OutboxSourceConnector connector = new OutboxSourceConnector();
    connector.start(valid());
    assertThat(connector.taskConfigs(3)).extracting(task -> task.get(OutboxSourceTask.SLOT))
        .containsExactly("0", "1", "2");
  }
}
