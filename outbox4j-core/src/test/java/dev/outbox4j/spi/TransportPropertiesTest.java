package dev.outbox4j.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TransportPropertiesTest {

  @Test
  void durations_are_read_with_a_unit_or_as_iso_8601() {
    TransportProperties props = TransportProperties.of("test",
        Map.of("a", "250ms", "b", "10s", "c", "5m", "d", "1h", "e", "PT2S", "f", " 3s "));

    assertThat(props.duration("a")).contains(Duration.ofMillis(250));
    assertThat(props.duration("b")).contains(Duration.ofSeconds(10));
    assertThat(props.duration("c")).contains(Duration.ofMinutes(5));
    assertThat(props.duration("d")).contains(Duration.ofHours(1));
    assertThat(props.duration("e")).contains(Duration.ofSeconds(2));
    assertThat(props.duration("f")).contains(Duration.ofSeconds(3));
    assertThat(props.duration("missing")).isEmpty();
  }

  @Test
  void malformed_values_are_refused_naming_the_key() {
    TransportProperties props = TransportProperties.of("test",
        Map.of("timeout", "soon", "port", "x", "enabled", "yes", "unit", "10 parsecs"));

    assertThatThrownBy(() -> props.duration("timeout")).hasMessageContaining("'timeout'").hasMessageContaining("soon");
    assertThatThrownBy(() -> props.integer("port")).hasMessageContaining("'port'");
    assertThatThrownBy(() -> props.bool("enabled")).hasMessageContaining("'enabled'");
    assertThatThrownBy(() -> props.duration("unit")).hasMessageContaining("'unit'");
  }

  @Test
  void values_of_secret_keys_never_appear_in_messages() {
    TransportProperties props = TransportProperties.of("test",
        Map.of("password", "hunter2", "servers", "nats://u:hunter3@h"));

    assertThatThrownBy(() -> props.integer("password")).hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> props.duration("servers")).hasMessageNotContaining("hunter3");
  }

  @Test
  void unknown_keys_are_refused_and_prefixed_families_count_as_read() {
    TransportProperties props = TransportProperties.of("test",
        Map.of("endpoint.a", "http://x", "endpoint.b", "http://y", "host", "h", "hots", "typo"));

    assertThat(props.withPrefix("endpoint.")).containsExactly(Map.entry("a", "http://x"), Map.entry("b", "http://y"));
    assertThat(props.string("host")).contains("h");
    assertThatThrownBy(props::rejectUnknown).hasMessageContaining("hots").hasMessageNotContaining("typo");
  }

  @Test
  void a_required_key_that_is_missing_or_blank_is_named() {
    TransportProperties props = TransportProperties.of("test", Map.of("blank", "  "));

    assertThatThrownBy(() -> props.requiredString("blank")).hasMessageContaining("'blank' is required");
    assertThatThrownBy(() -> props.requiredString("absent")).hasMessageContaining("'absent' is required");
  }
}
