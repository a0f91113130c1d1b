package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Transport} passes against its real broker (SPEC §5): payload bytes verbatim, the message id
 * and headers as broker headers, success only after the broker confirmed, failures classified as retryable or
 * permanent, a bound on every answer ({@link Transport#maxAnswerTime()}) that the transport states and keeps, and a
 * batch delivered concurrently.
 *
 * <p>Subclass it, point the abstract methods at a running broker, and every test runs. Each test gets a fresh
 * {@link #destination()} from {@link #prepareDestination()}, so tests never see each other's messages.
 */
public abstract class TransportContract {
  /** How long a test waits for a broker's answer or a consumer's message. */
  protected static final Duration WAIT = Duration.ofSeconds(30);

  private @Nullable Transport transport;
  private @Nullable String destination;

  /** What a consumer of the real broker received, normalised by the subclass. */
  public record Received(byte[] payload, Map<String, String> headers, @Nullable String messageId,
      @Nullable String orderingKey) {}

  /** @return a transport connected to the real broker; closed after each test */
  protected abstract Transport newTransport();

  /**
   * Creates (or names) a destination that exists and is empty, and starts consuming from it.
   *
   * @return the destination name to put in messages
   */
  protected abstract String prepareDestination();

  /**
   * @param timeout how long to wait
   * @return the next message a real consumer received from the prepared destination, or empty after the timeout
   */
  protected abstract Optional<Received> receive(Duration timeout);

  /** @return a destination whose delivery the broker refuses in a way no retry can fix (permanent failure) */
  protected abstract String unroutableDestination();

  /**
   * @return a transport configured like {@link #newTransport()} but pointing at an address where nothing listens,
   *     with a short timeout; its deliveries must fail as retryable
   */
  protected abstract Transport unreachableTransport();

  /** Releases what {@link #prepareDestination()} set up. The default does nothing. */
  protected void cleanUpDestination() {}

  @BeforeEach
  final void openTransport() {
    transport = newTransport();
    destination = prepareDestination();
  }

  @AfterEach
  final void closeTransport() {
    if (transport != null) {
      transport.close();
    }
    cleanUpDestination();
  }

  /** @return the transport under test */
  protected final Transport transport() {
    if (transport == null) {
      throw new IllegalStateException("no transport open");
    }
    return transport;
  }

  /** @return this test's destination */
  protected final String destination() {
    if (destination == null) {
      throw new IllegalStateException("no destination prepared");
    }
    return destination;
  }

  /**
   * @param payload the payload
   * @return a keyed message to this test's destination with a W3C traceparent header
   */
  protected final Message message(byte[] payload) {
    return Message.builder()
        .withDestination(destination())
        .withOrderingKey("key-" + UUID.randomUUID())
        .withPayload(payload)
        .withContentType("application/octet-stream")
        .withHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        .withHeader("tenant", "acme")
        .build();
  }

  /**
   * @param message the message
   * @return the outcome, waiting at most {@link #WAIT}
   */
  protected final DeliveryOutcome deliver(Transport target, Message message) {
    try {
      return target.deliver(message).toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("delivery did not complete within " + WAIT, e);
    }
  }

  @Test
  public final void binary_payload_arrives_byte_for_byte() {
    byte[] payload = new byte[512];
    for (int i = 0; i < payload.length; i++) {
      payload[i] = (byte) i; // 0x80..0xFF alone are not valid UTF-8
    }
    payload[0] = (byte) 0xC3;
    payload[1] = (byte) 0x28; // an invalid two-byte UTF-8 sequence
    Message message = message(payload);

    assertThat(deliver(transport(), message)).isEqualTo(DeliveryOutcome.delivered());

    Received received = receive(WAIT).orElseThrow(() -> new AssertionError("nothing arrived"));
    assertThat(received.payload()).isEqualTo(payload);
  }

  @Test
  public final void message_id_and_headers_arrive_as_broker_headers() {
    Message message = message("{\"order\":42}".getBytes(java.nio.charset.StandardCharsets.UTF_8));

    assertThat(deliver(transport(), message)).isEqualTo(DeliveryOutcome.delivered());

    Received received = receive(WAIT).orElseThrow(() -> new AssertionError("nothing arrived"));
    assertThat(received.messageId()).isEqualTo(message.id().toString());
    assertThat(received.headers())
        .containsEntry("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        .containsEntry("tenant", "acme");
  }

  @Test
  public final void success_is_reported_only_for_a_message_the_broker_holds() {
    Message message = message(new byte[] {1, 2, 3});

    DeliveryOutcome outcome = deliver(transport(), message);

    assertThat(outcome).isEqualTo(DeliveryOutcome.delivered());
    // Confirmed means stored: a consumer that starts reading now still gets it.
    assertThat(receive(WAIT)).map(Received::messageId).contains(message.id().toString());
  }

  @Test
  public final void an_unroutable_destination_is_a_permanent_failure() {
    Message message = Message.builder().withDestination(unroutableDestination()).withPayload("x").build();

    assertThat(deliver(transport(), message)).isInstanceOf(DeliveryOutcome.Permanent.class);
  }

  @Test
  public final void an_unreachable_broker_is_a_retryable_failure() {
    Transport unreachable = unreachableTransport();
    try {
      DeliveryOutcome outcome;
      try {
        outcome = unreachable.deliver(message(new byte[] {9})).toCompletableFuture()
            .handle((o, e) -> o != null ? o : DeliveryOutcome.retryable(String.valueOf(e)))
            .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RuntimeException e) {
        outcome = DeliveryOutcome.retryable(e.toString()); // the relay treats a thrown exception the same way
      }
      assertThat(outcome).isInstanceOf(DeliveryOutcome.Retryable.class);
    } catch (Exception e) {
      throw new AssertionError("an unreachable broker must fail within " + WAIT, e);
    } finally {
      unreachable.close();
    }
  }

  @Test
  public final void the_transport_states_its_bound_and_an_unreachable_broker_is_answered_within_it() throws Exception {
    assertThat(transport().maxAnswerTime()).as("a broker transport states how long a send can take (maxAnswerTime)")
        .isPositive();
    Transport unreachable = unreachableTransport();
    try {
      long start = System.nanoTime();
      unreachable.deliver(message(new byte[] {9})).toCompletableFuture()
          .handle((outcome, error) -> outcome).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(took).as("answered within maxAnswerTime (%s), with a second to spare for a loaded machine",
          unreachable.maxAnswerTime()).isLessThanOrEqualTo(unreachable.maxAnswerTime().plusSeconds(1));
    } finally {
      unreachable.close();
    }
  }

  @Test
  public final void a_batch_sent_at_once_is_confirmed_and_arrives_whole() throws Exception {
    int count = 200;
    List<Message> messages = new ArrayList<>();
    List<CompletableFuture<DeliveryOutcome>> outcomes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Message message = message(("m" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      messages.add(message);
      outcomes.add(transport().deliver(message).toCompletableFuture());
    }
    CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    for (CompletableFuture<DeliveryOutcome> outcome : outcomes) {
      assertThat(outcome.join()).isEqualTo(DeliveryOutcome.delivered());
    }
    Set<String> expected = new HashSet<>();
    messages.forEach(m -> expected.add(m.id().toString()));
    Set<String> arrived = new HashSet<>();
    while (arrived.size() < count) {
      Optional<Received> next = receive(WAIT);
      if (next.isEmpty()) {
        break;
      }
      arrived.add(next.get().messageId());
    }
    assertThat(arrived).isEqualTo(expected);
  }
}
