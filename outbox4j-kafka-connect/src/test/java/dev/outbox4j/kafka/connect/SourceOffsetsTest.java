package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

class SourceOffsetsTest {

  /**
   * Connect looks a partition's offset up by its serialized form; a worker in another JVM must produce the same bytes
   * (with {@code Map.of} the key order, and so the bytes, changed between JVMs: a task restarted in another worker
   * process did not find its own offset and sent its last batch again).
   */
  @Test
  void a_partition_serializes_to_the_same_json_in_every_jvm() {
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "false"), true);
    byte[] key = converter.fromConnectData("offsets", null, SourceOffsets.partition("orders_", 3));
    assertThat(new String(key, StandardCharsets.UTF_8)).isEqualTo("{\"outbox\":\"orders_\",\"slot\":3}");
  }
}
