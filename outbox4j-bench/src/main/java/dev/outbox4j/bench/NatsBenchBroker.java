package dev.outbox4j.bench;

import dev.outbox4j.nats.NatsTransport;
import dev.outbox4j.spi.Transport;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * NATS JetStream for the broker scenarios: the service on 127.0.0.1:4222, a fresh file-backed stream per scenario.
 * Both sides publish asynchronously with the message id as {@code Nats-Msg-Id} (the stream deduplicates on it) and
 * the content type as a header, and count a message only once its publish ack arrived. Purged between runs.
 */
final class NatsBenchBroker implements BenchBroker {
  static final String SERVER = "nats://127.0.0.1:4222";

  private final String stream = "OUTBOX4J_BENCH_" + UUID.randomUUID().toString().replace("-", "")
      .toUpperCase(Locale.ROOT);
  private final String subject = stream.toLowerCase(Locale.ROOT) + ".orders";
  private final Connection admin;
  private final JetStreamManagement management;

  NatsBenchBroker() throws Exception {
    admin = Nats.connect(Options.builder().server(SERVER).connectionName("outbox4j-bench-admin").build());
    management = admin.jetStreamManagement();
    management.addStream(StreamConfiguration.builder().name(stream).subjects(subject).storageType(StorageType.File)
        .build());
  }

  @Override
  public String name() {
    return "nats";
  }

  @Override
  public String describe() {
    return "NATS JetStream (file stream), publish ack";
  }

  @Override
  public Transport transport() {
    return NatsTransport.builder().withServer(SERVER).withConnectionName("outbox4j-bench-relay")
        .withSubjectMapping(m -> subject).build();
  }

  @Override
  public Publisher publisher() throws Exception {
    Connection connection = Nats.connect(Options.builder().server(SERVER).connectionName("outbox4j-bench-baseline")
        .build());
    JetStream jetStream = connection.jetStream();
    return new Publisher() {
      @Override
      public void publishAll(List<Row> rows) throws Exception {
        List<CompletableFuture<PublishAck>> acks = new ArrayList<>(rows.size());
        for (Row row : rows) {
          Headers headers = new Headers();
          headers.put(NatsTransport.CONTENT_TYPE_HEADER, row.contentType());
          NatsMessage message = NatsMessage.builder().subject(subject).headers(headers).data(row.payload()).build();
          acks.add(jetStream.publishAsync(message, PublishOptions.builder().messageId(row.id()).build()));
        }
        for (CompletableFuture<PublishAck> ack : acks) {
          ack.get(30, TimeUnit.SECONDS);
        }
      }

      @Override
      public void close() throws Exception {
        connection.close();
      }
    };
  }

  @Override
  public void purge() throws Exception {
    management.purgeStream(stream);
  }

  @Override
  public long stored() throws Exception {
    return management.getStreamInfo(stream).getStreamState().getMsgCount();
  }

  @Override
  public void close() throws Exception {
    try {
      management.deleteStream(stream);
    } finally {
      admin.close();
    }
  }
}
