package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.http.HttpTransport;
import dev.outbox4j.kafka.KafkaTransport;
import dev.outbox4j.nats.NatsTransport;
import dev.outbox4j.rabbitmq.RabbitMqTransport;
import dev.outbox4j.spi.Transport;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.amqp.rabbit.connection.AbstractConnectionFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Builds the relay's {@link Transport} from {@code outbox4j.transport.<type>.*} when {@code outbox4j.transport.type}
 * names it and its module is on the class path, through the transport's own {@code fromProperties} (which rejects
 * unknown keys and names a malformed one). A {@link Transport} bean of the application's wins. Naming a type whose
 * module is missing fails start-up with a message saying which dependency to add.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "outbox4j", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(Outbox4jProperties.class)
public class Outbox4jTransportAutoConfiguration {
  private static final Map<String, String> MODULES = NamedTransports.MODULES;

  /** Creates the configuration; called by Spring. */
  public Outbox4jTransportAutoConfiguration() {}

  /**
   * @param properties the bound properties
   * @return a marker that fails start-up when the named transport's module is missing or the type is unknown
   */
  @Bean
  @ConditionalOnProperty(prefix = "outbox4j.transport", name = "type")
  @ConditionalOnMissingBean(Transport.class)
  TransportModuleCheck outbox4jTransportModuleCheck(Outbox4jProperties properties) {
    String type = String.valueOf(properties.getTransport().getType());
    String className = MODULES.get(type);
    if (className == null) {
      throw new IllegalArgumentException("outbox4j.transport.type must be one of " + MODULES.keySet().stream().sorted()
          .toList() + ", was '" + type + "'");
    }
    throw new IllegalStateException("outbox4j.transport.type=" + type + " but " + className + " is not on the class "
        + "path: add the dependency dev.outbox4j:outbox4j-" + type);
  }

  /** Never created: its factory method fails start-up with the reason. */
  static final class TransportModuleCheck {
    private TransportModuleCheck() {}
  }

  /** Kafka, through {@code KafkaTransport.fromProperties}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(KafkaTransport.class)
  @ConditionalOnProperty(prefix = "outbox4j.transport", name = "type", havingValue = "kafka")
  static class Kafka {
    @Bean
    @ConditionalOnMissingBean(Transport.class)
    KafkaTransport outbox4jTransport(Outbox4jProperties properties, Environment environment) {
      Map<String, String> settings = new LinkedHashMap<>();
      if (properties.getTransport().isReuseSpringClient()) {
        Binder binder = Binder.get(environment);
        Bindable<List<String>> list = Bindable.listOf(String.class);
        List<String> servers = binder.bind("spring.kafka.producer.bootstrap-servers", list)
            .orElseGet(() -> binder.bind("spring.kafka.bootstrap-servers", list).orElse(List.of("localhost:9092")));
        settings.put("bootstrap.servers", String.join(",", servers));
      }
      settings.putAll(properties.getTransport().getKafka());
      return KafkaTransport.fromProperties(settings);
    }
  }

  /** RabbitMQ, through {@code RabbitMqTransport.fromProperties}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RabbitMqTransport.class)
  @ConditionalOnProperty(prefix = "outbox4j.transport", name = "type", havingValue = "rabbitmq")
  static class RabbitMq {
    @Bean
    @ConditionalOnMissingBean(Transport.class)
    RabbitMqTransport outbox4jTransport(Outbox4jProperties properties, ObjectProvider<SpringRabbitSettings> spring) {
      Map<String, String> settings = new LinkedHashMap<>();
      if (properties.getTransport().isReuseSpringClient()) {
        SpringRabbitSettings source = spring.getIfAvailable();
        if (source == null) {
          throw new IllegalStateException("outbox4j.transport.reuse-spring-client=true needs a single Spring AMQP "
              + "ConnectionFactory bean (spring-boot-starter-amqp)");
        }
        settings.putAll(source.settings());
      }
      settings.putAll(properties.getTransport().getRabbitmq());
      return RabbitMqTransport.fromProperties(settings);
    }
  }

  /** Reads the application's Spring AMQP connection settings, when Spring AMQP is on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.amqp.rabbit.connection.AbstractConnectionFactory")
  @ConditionalOnProperty(prefix = "outbox4j.transport", name = "reuse-spring-client", havingValue = "true")
  static class SpringAmqp {
    @Bean
    SpringRabbitSettings outbox4jSpringRabbitSettings(
        ObjectProvider<org.springframework.amqp.rabbit.connection.ConnectionFactory> factory) {
      return () -> {
        if (!(factory.getIfUnique() instanceof AbstractConnectionFactory spring)) {
          throw new IllegalStateException("outbox4j.transport.reuse-spring-client=true needs a single Spring AMQP "
              + "ConnectionFactory bean derived from AbstractConnectionFactory (Spring Boot's CachingConnectionFactory)");
        }
        com.rabbitmq.client.ConnectionFactory rabbit = spring.getRabbitConnectionFactory();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("host", rabbit.getHost());
        settings.put("port", String.valueOf(rabbit.getPort()));
        settings.put("virtual-host", rabbit.getVirtualHost());
        settings.put("username", rabbit.getUsername());
        settings.put("password", rabbit.getPassword());
        return settings;
      };
    }
  }

  /** The connection settings of the application's own RabbitMQ client, in the transport's properties form. */
  @FunctionalInterface
  interface SpringRabbitSettings {
    Map<String, String> settings();
  }

  /** NATS JetStream, through {@code NatsTransport.fromProperties}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(NatsTransport.class)
  @ConditionalOnProperty(prefix = "outbox4j.transport", name = "type", havingValue = "nats")
  static class Nats {
    @Bean
    @ConditionalOnMissingBean(Transport.class)
    NatsTransport outbox4jTransport(Outbox4jProperties properties) {
      return NatsTransport.fromProperties(properties.getTransport().getNats());
    }
  }

  /** HTTP webhooks, through {@code HttpTransport.fromProperties}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HttpTransport.class)
  @ConditionalOnProperty(prefix = "outbox4j.transport", name = "type", havingValue = "http")
  static class Http {
    @Bean
    @ConditionalOnMissingBean(Transport.class)
    HttpTransport outbox4jTransport(Outbox4jProperties properties) {
      return HttpTransport.fromProperties(properties.getTransport().getHttp());
    }
  }
}
