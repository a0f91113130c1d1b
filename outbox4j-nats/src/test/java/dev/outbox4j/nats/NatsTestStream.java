package dev.outbox4j.nats;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The NATS server on 127.0.0.1:4222 seen from a test: a stream with a unique name and subject space per test (deleted
 * afterwards) and a real JetStream consumer that collects what the stream holds.
 */
final class NatsTestStream implements AutoCloseable {
  static final int PORT = 4222;
  static final String SERVER = "nats://127.0.0.1:" + PORT;

  final String name = "OUTBOX4J_TEST_" + UUID.randomUUID().toString().replace("-", "").toUpperCase(Locale.ROOT);
  final String subjectSpace = name.toLowerCase(Locale.ROOT);
  final Connection connection;
  final JetStream jetStream;
  final JetStreamManagement management;
  final BlockingQueue<io.nats.client.Message> received = new LinkedBlockingQueue<>();
  private Dispatcher dispatcher;

  NatsTestStream() {
    this(config -> config);
  }

  /** @param customise changes to the stream's configuration, for example a size limit */
  NatsTestStream(UnaryOperator<StreamConfiguration.Builder> customise) {
    try {
      connection = Nats.connect(Options.builder().server(SERVER).connectionName("outbox4j-test-consumer").build());
      jetStream = connection.jetStream();
      management = connection.jetStreamManagement();
      management.addStream(customise.apply(StreamConfiguration.builder()
          .name(name).subjects(subjectSpace + ".>").storageType(StorageType.Memory)
          .discardPolicy(DiscardPolicy.Old)).build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (JetStreamApiException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** @return a subject the stream captures */
  String subject() {
    return subjectSpace + ".orders";
  }

  /** Starts an ordered push consumer over the whole stream. */
  void startConsuming(Consumer<io.nats.client.Message> onEach) {
    dispatcher = connection.createDispatcher();
    try {
      jetStream.subscribe(subjectSpace + ".>", dispatcher, message -> {
        received.add(message);
        onEach.accept(message);
      }, false, PushSubscribeOptions.builder().stream(name).ordered(true).build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (JetStreamApiException e) {
      throw new IllegalStateException(e);
    }
  }

  void startConsuming() {
    startConsuming(message -> {});
  }

  io.nats.client.Message next(Duration timeout) throws InterruptedException {
    io.nats.client.Message message = received.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (message == null) {
      throw new AssertionError("nothing arrived within " + timeout);
    }
    return message;
  }

  long storedCount() throws IOException, JetStreamApiException {
    return management.getStreamInfo(name).getStreamState().getMsgCount();
  }

  @Override
  public void close() {
    try {
      management.deleteStream(name);
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      // already gone
    }
    try {
      connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
