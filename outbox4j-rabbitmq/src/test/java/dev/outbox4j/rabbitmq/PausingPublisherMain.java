package dev.outbox4j.rabbitmq;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The child process of {@link RabbitMqPausedProcessTest}: hands its transport a pipelined batch, and at the first
 * confirm that arrives once every message was handed over, stops its own process ({@code kill -STOP}, every thread at
 * once) while the transport still holds publishes it has not written. The test resumes it well past the bound.
 * Prints {@code PAUSING} before it stops and {@code ANSWERED delivered=… other=…} when every delivery was answered.
 *
 * <p>Arguments: broker port, destination, message count, confirm timeout in milliseconds.
 */
final class PausingPublisherMain {
  private PausingPublisherMain() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    String destination = args[1];
    int count = Integer.parseInt(args[2]);
    Duration bound = Duration.ofMillis(Long.parseLong(args[3]));
    try (RabbitMqTransport transport = RabbitMqTransport.builder().withPort(port).withConfirmTimeout(bound)
        .withConnectionName("outbox4j-paused-publisher").build()) {
      Message warmUp = Message.builder().withDestination(destination).withPayload("warm-up").build();
      DeliveryOutcome first = transport.deliver(warmUp).toCompletableFuture().get(30, TimeUnit.SECONDS);
      if (!(first instanceof DeliveryOutcome.Delivered)) {
        throw new IllegalStateException("warm-up not delivered: " + first);
      }
      AtomicBoolean handedOver = new AtomicBoolean();
      AtomicBoolean paused = new AtomicBoolean();
      List<CompletableFuture<DeliveryOutcome>> outcomes = new ArrayList<>(count);
      String payload = "x".repeat(128);
      for (int i = 0; i < count; i++) {
        Message message = Message.builder().withDestination(destination).withOrderingKey("key-" + i)
            .withPayload(payload).build();
        CompletableFuture<DeliveryOutcome> outcome = transport.deliver(message).toCompletableFuture();
        outcome.thenAccept(answer -> {
          if (answer instanceof DeliveryOutcome.Delivered && handedOver.get() && paused.compareAndSet(false, true)) {
            pauseSelf(); // on the connection's I/O thread, as a relay frozen between a confirm and its record
          }
        });
        outcomes.add(outcome);
      }
      handedOver.set(true);
      CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      long delivered = outcomes.stream().filter(o -> o.join() instanceof DeliveryOutcome.Delivered).count();
      System.out.println("ANSWERED delivered=" + delivered + " other=" + (count - delivered) + " paused="
          + paused.get());
    }
  }

  private static void pauseSelf() {
    System.out.println("PAUSING");
    System.out.flush();
    try {
      new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid())).inheritIO().start()
          .waitFor();
    } catch (IOException e) {
      throw new IllegalStateException("cannot stop this process", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
