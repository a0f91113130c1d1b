package dev.outbox4j.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransportPropertiesTest {
  @TempDir Path dir;

  @Test
  void any_key_can_be_read_from_a_file_named_by_key_file_without_its_trailing_line_break() throws Exception {
    Path secret = Files.writeString(dir.resolve("password"), "s3cret\r\n");
    TransportProperties props = TransportProperties.of("test", Map.of("password-file", secret.toString()));

    assertThat(props.string("password")).contains("s3cret");
    props.rejectUnknown(); // the -file key counts as read
  }

  @Test
  void a_key_given_twice_or_a_missing_or_empty_file_is_refused_naming_the_key_never_the_content() throws Exception {
    Path secret = Files.writeString(dir.resolve("password"), "s3cret");
    Path empty = Files.writeString(dir.resolve("empty"), "\n");

    assertThatThrownBy(() -> TransportProperties.of("test", Map.of("password", "x", "password-file",
        secret.toString())).string("password")).hasMessageContaining("'password-file'").hasMessageContaining("exclude");
    assertThatThrownBy(() -> TransportProperties.of("test", Map.of("password-file", dir.resolve("none").toString()))
        .string("password")).hasMessageContaining("'password-file'").hasMessageContaining(dir.resolve("none").toString());
    assertThatThrownBy(() -> TransportProperties.of("test", Map.of("password-file", empty.toString()))
        .string("password")).hasMessageContaining("is empty");
  }

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
