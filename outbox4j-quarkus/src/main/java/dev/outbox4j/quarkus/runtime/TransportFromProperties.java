package dev.outbox4j.quarkus.runtime;

import dev.outbox4j.spi.Transport;
import java.util.List;

/**
 * Builds the relay's {@link Transport} from {@code outbox4j.transport.<type>.*} through the transport module's own
 * {@code fromProperties}, which rejects unknown keys and names a malformed one. Each transport class is touched only in
 * its own branch, so an application needs only the module of the type it names; naming a type whose module is missing
 * fails start-up saying which dependency to add.
 *
 * <p>Stateless; thread-safe.
 */
final class TransportFromProperties {
  private static final List<String> TYPES = List.of("http", "kafka", "nats", "rabbitmq");

  private TransportFromProperties() {}

  /**
   * @param config the transport configuration, whose type is set
   * @param type the type named
   * @return the transport, not yet connected
   * @throws IllegalArgumentException for an unknown type or a malformed setting
   * @throws IllegalStateException when the type's module is not on the class path
   */
  static Transport create(Outbox4jConfig.Transport config, String type) {
    return switch (type) {
      case "rabbitmq" -> {
        requireModule(type, "dev.outbox4j.rabbitmq.RabbitMqTransport");
        yield dev.outbox4j.rabbitmq.RabbitMqTransport.fromProperties(config.rabbitmq());
      }
      case "http" -> {
        requireModule(type, "dev.outbox4j.http.HttpTransport");
        yield dev.outbox4j.http.HttpTransport.fromProperties(config.http());
      }
      case "kafka" -> {
        requireModule(type, "dev.outbox4j.kafka.KafkaTransport");
        yield dev.outbox4j.kafka.KafkaTransport.fromProperties(config.kafka());
      }
      case "nats" -> {
        requireModule(type, "dev.outbox4j.nats.NatsTransport");
        yield dev.outbox4j.nats.NatsTransport.fromProperties(config.nats());
      }
      default -> throw new IllegalArgumentException(
          "outbox4j.transport.type must be one of " + TYPES + ", was '" + type + "'");
    };
  }

  private static void requireModule(String type, String className) {
    try {
      Class.forName(className, false, Thread.currentThread().getContextClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("outbox4j.transport.type=" + type + " but " + className + " is not on the class "
          + "path: add the dependency dev.outbox4j:outbox4j-" + type, e);
    }
  }
}
