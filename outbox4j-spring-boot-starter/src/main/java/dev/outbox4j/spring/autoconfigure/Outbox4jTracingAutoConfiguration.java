package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.Outbox;
import dev.outbox4j.jdbc.inbox.JdbcInbox;
import dev.outbox4j.opentelemetry.TracingInbox;
import dev.outbox4j.opentelemetry.TracingOutbox;
import dev.outbox4j.opentelemetry.TracingTransport;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spring.Outbox4jCustomizer;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import java.sql.Connection;
import java.util.Locale;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.core.Ordered;

/**
 * OpenTelemetry trace propagation when {@code outbox4j-opentelemetry} is on the class path: a customizer that wraps
 * the writer in {@link TracingOutbox} and the relay's transport in {@link TracingTransport}. Spans go to the
 * application's {@link OpenTelemetry} bean, or to {@link GlobalOpenTelemetry} (the Java agent's) when there is none.
 * When the starter made a {@link JdbcInbox}, a {@link TracingInbox} around it is a bean too: consumers call its
 * {@code handleOnce(..., headers, handler)} to run their handler in a CONSUMER span. Off with
 * {@code outbox4j.tracing.enabled=false}.
 */
@AutoConfiguration(after = Outbox4jAutoConfiguration.class,
    afterName = "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration")
@ConditionalOnClass({TracingTransport.class, OpenTelemetry.class})
@ConditionalOnProperty(prefix = "outbox4j.tracing", name = "enabled", matchIfMissing = true)
public class Outbox4jTracingAutoConfiguration {

  /** Creates the configuration; called by Spring. */
  public Outbox4jTracingAutoConfiguration() {}

  /**
   * @param openTelemetry the application's OpenTelemetry, if it has one
   * @return the customizer that adds tracing; runs last, so it wraps whatever other customizers decorated
   */
  @Bean
  @ConditionalOnMissingBean(name = "outbox4jTracingCustomizer")
  public Outbox4jCustomizer outbox4jTracingCustomizer(ObjectProvider<OpenTelemetry> openTelemetry) {
    return new TracingCustomizer(openTelemetry);
  }

  /**
   * @param inbox the starter's inbox
   * @param openTelemetry the application's OpenTelemetry, if it has one
   * @return the inbox with CONSUMER spans; primary, so an injected {@code Inbox<Connection>} is the traced one
   */
  @Bean
  @Primary
  @ConditionalOnBean(JdbcInbox.class)
  @ConditionalOnMissingBean(TracingInbox.class)
  public TracingInbox<Connection> outbox4jTracingInbox(JdbcInbox inbox, ObjectProvider<OpenTelemetry> openTelemetry) {
    return TracingInbox.wrap(inbox, openTelemetry.getIfAvailable(GlobalOpenTelemetry::get));
  }

  /** Wraps the writer and the transport; ordered last. */
  static final class TracingCustomizer implements Outbox4jCustomizer, Ordered {
    private final ObjectProvider<OpenTelemetry> openTelemetry;

    TracingCustomizer(ObjectProvider<OpenTelemetry> openTelemetry) {
      this.openTelemetry = openTelemetry;
    }

    @Override
    public Outbox<Connection> decorateWriter(Outbox<Connection> outbox) {
      return TracingOutbox.wrap(outbox);
    }

    @Override
    public Transport decorateTransport(Transport transport) {
      return TracingTransport.wrap(transport, openTelemetry.getIfAvailable(GlobalOpenTelemetry::get),
          systemOf(transport));
    }

    @Override
    public int getOrder() {
      return Ordered.LOWEST_PRECEDENCE;
    }

    /** @return the {@code messaging.system} of a transport: its class name without "Transport", lower case */
    static String systemOf(Transport transport) {
      String name = transport.getClass().getSimpleName();
      if (name.endsWith("Transport") && name.length() > "Transport".length()) {
        name = name.substring(0, name.length() - "Transport".length());
      }
      return name.isEmpty() ? "outbox4j" : name.toLowerCase(Locale.ROOT);
    }
  }
}
