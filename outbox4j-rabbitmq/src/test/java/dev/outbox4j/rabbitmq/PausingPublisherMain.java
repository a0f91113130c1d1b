package dev.outbox4j.rabbitmq;

import dev.outbox4j.Message;
import dev.outbox4j.testkit.PausedProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The child process of {@link RabbitMqPausedProcessTest} ({@link PausedProcess}): a pipelined batch of small
 * messages, one key each, stopped at a confirm while the publisher still holds most of it.
 *
 * <p>Arguments: broker port, destination, message count, confirm timeout in milliseconds.
 */
final class PausingPublisherMain {
  private PausingPublisherMain() {}

  public static void main(String[] args) throws Exception {
    String destination = args[1];
    try (RabbitMqTransport transport = RabbitMqTransport.builder().withPort(Integer.parseInt(args[0]))
        .withConfirmTimeout(Duration.ofMillis(Long.parseLong(args[3])))
        .withConnectionName("outbox4j-paused-publisher").build()) {
      Message warmUp = Message.builder().withDestination(destination).withPayload("warm-up").build();
      PausedProcess.warmUp(transport, warmUp);
      List<Message> batch = new ArrayList<>();
      for (int i = 0; i < Integer.parseInt(args[2]); i++) {
        batch.add(Message.builder().withDestination(destination).withOrderingKey("key-" + i)
            .withPayload("x".repeat(128)).build());
      }
      PausedProcess.deliverAndStopAtAConfirmation(transport, batch);
    }
  }
}
