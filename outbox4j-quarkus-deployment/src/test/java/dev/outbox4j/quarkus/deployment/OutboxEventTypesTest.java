package dev.outbox4j.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.quarkus.OutboxEvent;
import java.io.IOException;
import org.jboss.jandex.Index;
import org.junit.jupiter.api.Test;

/** The build-time discovery of {@link OutboxEvent} types, on Jandex indexes of small event classes. */
class OutboxEventTypesTest {

  @OutboxEvent(destination = "orders/placed", orderingKey = "orderId")
  record OrderPlaced(String orderId) {}

  @OutboxEvent(destination = "orders/placed", orderingKey = "orderID")
  record Misspelt(String orderId) {}

  @OutboxEvent(destination = "customers", orderingKey = "customerId")
  interface CustomerEvent {}

  static final class CustomerRegistered implements CustomerEvent {
    public String getCustomerId() {
      return "c-1";
    }
  }

  static final class CustomerWithoutId implements CustomerEvent {}

  @OutboxEvent(destination = "payments", orderingKey = "paymentId")
  abstract static class PaymentEvent {
    String paymentId;
  }

  static final class PaymentCaptured extends PaymentEvent {}

  @Test
  void annotated_types_their_subclasses_and_implementors_are_found() throws IOException {
    Index index = Index.of(OrderPlaced.class, CustomerEvent.class, CustomerRegistered.class, PaymentEvent.class,
        PaymentCaptured.class, Object.class);

    assertThat(OutboxEventTypes.find(index)).containsExactlyInAnyOrder(OrderPlaced.class.getName(),
        CustomerEvent.class.getName(), CustomerRegistered.class.getName(), PaymentEvent.class.getName(),
        PaymentCaptured.class.getName());
  }

  @Test
  void an_ordering_key_that_names_no_member_fails_the_build_naming_type_and_property() throws IOException {
    assertThatThrownBy(() -> OutboxEventTypes.find(Index.of(Misspelt.class)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("@OutboxEvent on " + Misspelt.class.getName() + " names the ordering key property 'orderID', "
            + "which is neither a record component, an accessor orderID() or getOrderID(), nor a field");
  }

  @Test
  void an_implementor_of_a_marked_interface_is_checked_for_the_interfaces_ordering_key() throws IOException {
    assertThatThrownBy(() -> OutboxEventTypes.find(Index.of(CustomerEvent.class, CustomerWithoutId.class)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(CustomerWithoutId.class.getName())
        .hasMessageContaining("'customerId'");
  }
}
