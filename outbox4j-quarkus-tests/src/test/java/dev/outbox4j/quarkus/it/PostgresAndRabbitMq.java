package dev.outbox4j.quarkus.it;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.testkit.TcpProxy;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * The services of the test application, without Dev Services: this JVM's own PostgreSQL database on the machine's
 * server ({@link RunDatabases}), and the machine's RabbitMQ behind a {@link TcpProxy} the tests cut and stall. The
 * proxy is injected into the test's {@code TcpProxy} field; the queue of the {@link OrderShipped} events is this JVM's
 * too.
 */
public class PostgresAndRabbitMq implements QuarkusTestResourceLifecycleManager {
  /** The queue of {@link OrderShipped} events: this JVM's own, named in the event's destination by a property. */
  static final String EVENTS_QUEUE = "quarkus-events-" + RunDatabases.name();

  private TcpProxy rabbit;

  @Override
  public Map<String, String> start() {
    rabbit = TcpProxy.start("127.0.0.1", 5672);
    return Map.of(
        "quarkus.datasource.jdbc.url", RunDatabases.postgresUrl(),
        "quarkus.datasource.username", "postgres",
        "outbox4j.transport.rabbitmq.port", String.valueOf(rabbit.port()),
        "test.events.queue", EVENTS_QUEUE);
  }

  @Override
  public void inject(TestInjector injector) {
    injector.injectIntoFields(rabbit, new TestInjector.MatchesType(TcpProxy.class));
  }

  @Override
  public void stop() {
    if (rabbit != null) {
      rabbit.close();
    }
  }
}
