package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.http.HttpTransport;
import dev.outbox4j.kafka.KafkaTransport;
import dev.outbox4j.nats.NatsTransport;
import dev.outbox4j.rabbitmq.RabbitMqTransport;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.NamedTransport;
import java.util.Map;
import org.springframework.util.ClassUtils;

/**
 * Builds the transport of one of several outboxes from {@code outbox4j.outboxes.<name>.transport.<type>.*}, through
 * the transport's own {@code fromProperties}, as {@link Outbox4jTransportAutoConfiguration} does for the single outbox.
 * Each transport module is optional: its class is touched only inside its own holder, which is loaded only when that
 * type is named, and a type whose module is missing fails with the dependency to add.
 *
 * <p>Stateless; thread-safe.
 */
final class NamedTransports {
  /** Each transport type's class, by the type's name. */
  static final Map<String, String> MODULES = Map.of(
      "kafka", "dev.outbox4j.kafka.KafkaTransport",
      "rabbitmq", "dev.outbox4j.rabbitmq.RabbitMqTransport",
      "nats", "dev.outbox4j.nats.NatsTransport",
      "http", "dev.outbox4j.http.HttpTransport");

  private NamedTransports() {}

  /**
   * @param property the transport's properties, for messages: {@code outbox4j.outboxes.billing.transport}
   * @param settings the transport's settings, with a type
   * @return the transport
   * @throws IllegalArgumentException for an unknown type, or from the transport naming a malformed key
   * @throws IllegalStateException when the type's module is missing, or for {@code reuse-spring-client}
   */
  static Transport build(String property, NamedTransport settings) {
    String type = String.valueOf(settings.getType());
    String className = MODULES.get(type);
    if (className == null) {
      throw new IllegalArgumentException(property + ".type must be one of " + MODULES.keySet().stream().sorted()
          .toList() + ", was '" + type + "'");
    }
    if (!ClassUtils.isPresent(className, NamedTransports.class.getClassLoader())) {
      throw new IllegalStateException(property + ".type=" + type + " but " + className + " is not on the class path: "
          + "add the dependency dev.outbox4j:outbox4j-" + type);
    }
    if (settings.isReuseSpringClient()) {
      throw new IllegalStateException(property + ".reuse-spring-client is for the single outbox only: give the "
          + "connection settings under " + property + "." + type + ".*, or name a Transport bean with " + property
          + ".bean");
    }
    try {
      return switch (type) {
        case "kafka" -> Kafka.build(settings.getKafka());
        case "rabbitmq" -> RabbitMq.build(settings.getRabbitmq());
        case "nats" -> Nats.build(settings.getNats());
        default -> Http.build(settings.getHttp());
      };
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(property + "." + type + ": " + e.getMessage(), e);
    }
  }

  private static final class Kafka {
    static Transport build(Map<String, String> settings) {
      return KafkaTransport.fromProperties(settings);
    }
  }

  private static final class RabbitMq {
    static Transport build(Map<String, String> settings) {
      return RabbitMqTransport.fromProperties(settings);
    }
  }

  private static final class Nats {
    static Transport build(Map<String, String> settings) {
      return NatsTransport.fromProperties(settings);
    }
  }

  private static final class Http {
    static Transport build(Map<String, String> settings) {
      return HttpTransport.fromProperties(settings);
    }
  }
}
