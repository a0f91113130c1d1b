package dev.outbox4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MessageTest {

  @Test
  void a_blank_destination_is_refused_naming_the_field() {
    assertThatThrownBy(() -> Message.builder().withDestination("  ").build())
        .isInstanceOfSatisfying(MessageRejectedException.class, e -> {
          assertThat(e.field()).isEqualTo("destination");
          assertThat(e.limit()).isEqualTo("non-blank");
        });
    assertThatThrownBy(() -> Message.builder().build())
        .isInstanceOfSatisfying(MessageRejectedException.class, e -> assertThat(e.field()).isEqualTo("destination"));
  }

  @Test
  void a_key_longer_than_its_column_is_refused_with_the_limit() {
    String key = "k".repeat(Message.MAX_NAME_LENGTH + 1);

    assertThatThrownBy(() -> Message.builder().withDestination("d").withOrderingKey(key).build())
        .isInstanceOfSatisfying(MessageRejectedException.class, e -> {
          assertThat(e.field()).isEqualTo("orderingKey");
          assertThat(e.limit()).isEqualTo("at most 255 characters");
          assertThat(e.getMessage()).contains("256 characters");
        });
  }

  @Test
  void a_blank_header_name_is_refused() {
    assertThatThrownBy(() -> Message.builder().withDestination("d").withHeader(" ", "v").build())
        .isInstanceOfSatisfying(MessageRejectedException.class, e -> assertThat(e.field()).isEqualTo("headers"));
  }

  @Test
  void the_payload_is_copied_in_and_out() {
    byte[] bytes = {1, 2, 3};
    Message message = Message.builder().withDestination("d").withPayload(bytes).build();
    bytes[0] = 9;
    message.payload()[1] = 9;

    assertThat(message.payload()).containsExactly(1, 2, 3);
  }

  @Test
  void ids_are_time_ordered_version_7_uuids_unless_given() {
    Message first = Message.builder().withDestination("d").build();
    Message second = Message.builder().withDestination("d").build();
    UUID given = UUID.randomUUID();

    assertThat(first.id().version()).isEqualTo(7);
    assertThat(first.id().toString()).isLessThan(second.id().toString());
    assertThat(Message.builder().withDestination("d").withId(given).build().id()).isEqualTo(given);
  }

  @Test
  void to_string_never_shows_the_payload() {
    Message message = Message.builder().withDestination("d").withPayload("card 4111-1111").build();

    assertThat(message.toString()).doesNotContain("4111").contains("14 bytes");
  }

  @Test
  void to_builder_round_trips_every_field() {
    Message message = Message.builder().withDestination("d").withOrderingKey("k").withPayload("p")
        .withContentType("text/plain").withHeader("h", "v").withNotBefore(java.time.Instant.EPOCH).build();

    assertThat(message.toBuilder().build()).isEqualTo(message);
  }

  @Test
  void limits_refuse_an_oversized_payload_too_many_headers_and_a_long_header_value() {
    MessageLimits limits = new MessageLimits(10, 2, 4);
    Map<String, String> three = new HashMap<>(Map.of("a", "1", "b", "2", "c", "3"));

    assertThatThrownBy(() -> limits.check(Message.builder().withDestination("d").withPayload(new byte[11]).build()))
        .isInstanceOfSatisfying(MessageRejectedException.class, e -> {
          assertThat(e.field()).isEqualTo("payload");
          assertThat(e.limit()).isEqualTo("at most 10 bytes");
        });
    assertThatThrownBy(() -> limits.check(Message.builder().withDestination("d").withHeaders(three).build()))
        .isInstanceOfSatisfying(MessageRejectedException.class, e -> assertThat(e.field()).isEqualTo("headers"));
    assertThatThrownBy(() -> limits.check(Message.builder().withDestination("d").withHeader("h", "ü234").build()))
        .isInstanceOfSatisfying(MessageRejectedException.class,
            e -> assertThat(e.field()).isEqualTo("headers[h]"));
    limits.check(Message.builder().withDestination("d").withPayload(new byte[10]).withHeader("h", "1234").build());
  }

  @Test
  void limits_must_be_positive() {
    assertThatThrownBy(() -> new MessageLimits(0, 1, 1)).hasMessageContaining("maxPayloadBytes");
  }
}
