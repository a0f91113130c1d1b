package dev.outbox4j.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.outbox4j.flow.FlowState;
import dev.outbox4j.flow.FlowStateDecodingException;
import dev.outbox4j.flow.FlowStateUnreadableException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonFlowStateCodecTest {

  record Order(String status, List<String> steps) {}

  private final JsonFlowStateCodec<Order> codec = JsonFlowStateCodec.of(Order.class);

  private static byte[] utf8(String json) {
    return json.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void a_state_survives_encoding_and_decoding() {
    FlowState<Order> state = new FlowState<>("order-42", 3, 1, new Order("paid", List.of("accept", "charge")));

    assertThat(codec.decode(codec.encode(state))).isEqualTo(state);
  }

  @Test
  void the_encoded_form_is_one_json_object_carrying_id_revision_and_schema_version() {
    String json = new String(codec.encode(new FlowState<>("f", 7, 1, new Order("new", List.of()))),
        StandardCharsets.UTF_8);

    assertThat(json).isEqualTo("{\"flowId\":\"f\",\"revision\":7,\"schemaVersion\":1,"
        + "\"body\":{\"status\":\"new\",\"steps\":[]}}");
  }

  @Test
  void generic_bodies_are_supported_through_a_type_reference() {
    JsonFlowStateCodec<Map<String, Integer>> counts =
        JsonFlowStateCodec.builder(new TypeReference<Map<String, Integer>>() {}).build();
    FlowState<Map<String, Integer>> state = new FlowState<>("f", 0, 1, Map.of("a", 1));

    assertThat(counts.decode(counts.encode(state)).body()).containsEntry("a", 1);
  }

  @Test
  void a_schema_version_the_codec_does_not_read_is_refused_as_unknown() {
    byte[] v2 = codec.encode(new FlowState<>("f", 1, 2, new Order("new", List.of())));

    assertThatThrownBy(() -> codec.decode(v2))
        .isInstanceOfSatisfying(FlowStateDecodingException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_SCHEMA_VERSION));
  }

  @Test
  void a_codec_built_for_several_schema_versions_reads_each_of_them() {
    JsonFlowStateCodec<Order> both = JsonFlowStateCodec.builder(Order.class).withSchemaVersions(1, 2).build();
    byte[] v2 = both.encode(new FlowState<>("f", 1, 2, new Order("new", List.of())));

    assertThat(both.decode(v2).schemaVersion()).isEqualTo(2);
  }

  @Test
  void content_that_is_not_a_well_formed_state_is_refused_as_malformed() {
    List<String> malformed = List.of(
        "",
        "{not json",
        "[1,2]",
        "{\"flowId\":\"f\",\"revision\":1,\"schemaVersion\":1,\"body\":{\"status\":\"x\",\"steps\":[]}} trailing",
        "{\"revision\":1,\"schemaVersion\":1,\"body\":{}}",
        "{\"flowId\":\"f\",\"revision\":\"one\",\"schemaVersion\":1,\"body\":{}}",
        "{\"flowId\":\"f\",\"revision\":1,\"body\":{}}",
        "{\"flowId\":\"f\",\"revision\":1,\"schemaVersion\":1}",
        "{\"flowId\":\"f\",\"revision\":1,\"schemaVersion\":1,\"body\":{\"status\":[1]}}",
        "{\"flowId\":\" \",\"revision\":1,\"schemaVersion\":1,\"body\":{\"status\":\"x\",\"steps\":[]}}");

    for (String json : malformed) {
      assertThatThrownBy(() -> codec.decode(utf8(json)))
          .as(json)
          .isInstanceOfSatisfying(FlowStateDecodingException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED));
    }
  }

  @Test
  void error_messages_never_quote_the_stored_content() {
    assertThatThrownBy(() -> codec.decode(utf8("{\"secret-token-123\"")))
        .hasMessageNotContaining("secret-token-123");
  }
}
