package dev.outbox4j.quarkus.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.RelayBuilder;
import dev.outbox4j.RetryPolicy;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Outbox4jConfig} as SmallRye Config binds it (without booting Quarkus, so without its converters: durations in ISO-8601 form): defaults, and the transport settings,
 * whose keys have dots ({@code endpoint.<alias>}, {@code tls.*}) and reach the transport's {@code fromProperties} whole.
 */
class Outbox4jConfigTest {

  private static Outbox4jConfig bind(Map<String, String> properties) {
    SmallRyeConfig config = new SmallRyeConfigBuilder()
        .withSources(new PropertiesConfigSource(properties, "test", 100))
        .withMapping(Outbox4jConfig.class)
        .build();
    return config.getConfigMapping(Outbox4jConfig.class);
  }

  @Test
  void unset_properties_take_the_core_defaults() {
    Outbox4jConfig config = bind(Map.of());

    assertThat(config.enabled()).isTrue();
    assertThat(config.tables().prefix()).isEqualTo("outbox4j_");
    assertThat(config.relay().batchSize()).isEqualTo(RelayBuilder.DEFAULT_BATCH_SIZE);
    assertThat(config.relay().maxInFlight()).isEqualTo(RelayBuilder.DEFAULT_MAX_IN_FLIGHT);
    assertThat(config.retry().toRetryPolicy().describe()).isEqualTo(RetryPolicy.ofDefaults().describe());
    assertThat(config.transport().type()).isEmpty();
    assertThat(config.transport().http()).isEmpty();
  }

  @Test
  void transport_keys_with_dots_reach_the_transport_whole() {
    Outbox4jConfig config = bind(Map.of(
        "outbox4j.transport.type", "http",
        "outbox4j.transport.http.endpoint.orders", "http://127.0.0.1:9/orders",
        "outbox4j.transport.http.request-timeout", "2s",
        "outbox4j.transport.rabbitmq.tls.enabled", "true",
        "outbox4j.relay.shutdown-grace", "PT1S"));

    assertThat(config.transport().http()).containsOnly(
        Map.entry("endpoint.orders", "http://127.0.0.1:9/orders"), Map.entry("request-timeout", "2s"));
    assertThat(config.transport().rabbitmq()).containsOnly(Map.entry("tls.enabled", "true"));
    assertThat(config.relay().shutdownGrace()).contains(Duration.ofSeconds(1));
  }
}
