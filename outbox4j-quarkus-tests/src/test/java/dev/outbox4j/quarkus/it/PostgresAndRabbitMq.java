package dev.outbox4j.quarkus.it;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.testkit.TcpProxy;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * The services of the test application, without Dev Services: this JVM's own PostgreSQL database on the machine's
 * server ({@link RunDatabases}), and the machine's RabbitMQ behind a {@link TcpProxy} the tests cut and stall. The
 * proxy is injected into the test's {@code TcpProxy} field.
 */
public class PostgresAndRabbitMq implements QuarkusTestResourceLifecycleManager {
  private TcpProxy rabbit;

  @Override
  public Map<String, String> start() {
    rabbit = TcpProxy.start("127.0.0.1", 5672);
    return Map.of(
        "quarkus.datasource.jdbc.url", RunDatabases.postgresUrl(),
        "quarkus.datasource.username", "postgres",
        "outbox4j.transport.rabbitmq.port", String.valueOf(rabbit.port()));
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
