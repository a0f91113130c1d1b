package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.OutboxException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The headers column format: a JSON object of strings that any language can write. */
class HeaderJsonTest {

  @Test
  void headers_round_trip_in_order_with_every_character_escaped_as_needed() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("z-first", "1");
    headers.put("quote\"back\\slash", "line\nbreak\ttab\u0001control ünïcødé ✓ 😀");
    headers.put("empty", "");

    String json = HeaderJson.encode(headers);

    assertThat(HeaderJson.decode(json)).containsExactlyEntriesOf(headers);
    assertThat(HeaderJson.encode(Map.of())).isEqualTo("{}");
  }

  @Test
  void json_written_by_another_application_is_read_with_whitespace_and_unicode_escapes() {
    assertThat(HeaderJson.decode(" { \"traceparent\" : \"00-ab\" ,\n \"name\":\"caf\\u00e9\\/x\" } "))
        .containsExactly(Map.entry("traceparent", "00-ab"), Map.entry("name", "café/x"));
  }

  @Test
  void a_malformed_headers_column_fails_loudly_instead_of_losing_headers() {
    for (String bad : new String[] {"", "[]", "{\"a\":1}", "{\"a\":\"b\"", "{\"a\":\"b\"} x", "{\"a\" \"b\"}"}) {
      assertThatThrownBy(() -> HeaderJson.decode(bad)).as(bad)
          .isInstanceOf(OutboxException.class).hasMessageContaining("headers column");
    }
  }
}
