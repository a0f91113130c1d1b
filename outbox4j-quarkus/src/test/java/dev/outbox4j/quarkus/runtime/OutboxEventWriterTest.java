package dev.outbox4j.quarkus.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.Message;
import dev.outbox4j.quarkus.OutboxEvent;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How {@link OutboxEventWriter} maps an event to a message, without booting Quarkus: where it finds the annotation,
 * how it reads the ordering key, how it expands the destination. (Writing in the transaction is tested in
 * outbox4j-quarkus-tests.)
 */
class OutboxEventWriterTest {
  private static final SmallRyeConfig CONFIG = new SmallRyeConfigBuilder()
      .withSources(new PropertiesConfigSource(Map.of("orders.queue", "orders.placed"), "test", 100))
      .build();

  @OutboxEvent(destination = "customers", orderingKey = "customerId", contentType = "application/vnd.customer+json")
  interface CustomerEvent {}

  abstract static class CustomerBase implements CustomerEvent {
    private final String customerId;

    CustomerBase(String customerId) {
      this.customerId = customerId;
    }

    public String getCustomerId() {
      return customerId;
    }
  }

  static final class CustomerRegistered extends CustomerBase {
    CustomerRegistered(String customerId) {
      super(customerId);
    }
  }

  @OutboxEvent(destination = "/${orders.queue}", orderingKey = "tenant")
  static final class TenantEvent {
    final Integer tenant;

    TenantEvent(Integer tenant) {
      this.tenant = tenant;
    }
  }

  @Test
  void the_annotation_is_found_on_an_interface_of_a_superclass_and_the_key_through_an_inherited_getter() {
    OutboxEvent marked = OutboxEventWriter.marking(CustomerRegistered.class).orElseThrow();
    OutboxEventWriter.Route route = OutboxEventWriter.Route.of(CustomerRegistered.class, marked, CONFIG);

    Message message = route.toMessage(new CustomerRegistered("c-7"), event -> "{}".getBytes(StandardCharsets.UTF_8));

    assertThat(message.destination()).isEqualTo("customers");
    assertThat(message.orderingKey()).contains("c-7");
    assertThat(message.contentType()).isEqualTo("application/vnd.customer+json");
    assertThat(message.payload()).isEqualTo("{}".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void unmarked_types_have_no_route() {
    assertThat(OutboxEventWriter.marking(String.class)).isEmpty();
  }

  @Test
  void the_key_is_read_from_a_field_as_text_and_a_null_value_means_no_key() {
    OutboxEvent marked = OutboxEventWriter.marking(TenantEvent.class).orElseThrow();
    OutboxEventWriter.Route route = OutboxEventWriter.Route.of(TenantEvent.class, marked, CONFIG);

    assertThat(route.toMessage(new TenantEvent(42), event -> new byte[0]).orderingKey()).contains("42");
    assertThat(route.toMessage(new TenantEvent(null), event -> new byte[0]).orderingKey()).isEmpty();
  }

  @Test
  void destination_expressions_are_expanded_from_the_configuration_with_their_defaults() {
    assertThat(OutboxEventWriter.Route.destination(TenantEvent.class, "/${orders.queue}", CONFIG))
        .isEqualTo("/orders.placed");
    assertThat(OutboxEventWriter.Route.destination(TenantEvent.class, "${orders.topic:orders}", CONFIG))
        .isEqualTo("orders");
  }

  @Test
  void a_destination_naming_an_unset_property_fails_naming_the_type_and_the_property() {
    assertThatThrownBy(() -> OutboxEventWriter.Route.destination(TenantEvent.class, "/${orders.topic}", CONFIG))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("@OutboxEvent on " + TenantEvent.class.getName() + ": destination '/${orders.topic}' names the "
            + "property orders.topic, which is not set");
  }
}
