package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.micrometer.OutboxMetrics;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spring.RelayLifecycle;
import dev.outbox4j.spring.TransactionalOutbox;
import dev.outbox4j.spring.WakeUpListenerLifecycle;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.NamedOutbox;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Registers each named outbox's beans, {@code outbox4j.<name>.<part>}, each with the qualifier {@code <name>}:
 * {@code store} ({@link JdbcOutboxStore}), {@code outbox} ({@link TransactionalOutbox}), {@code migration}; with a
 * relay (a transport is set and {@code relay.enabled}): {@code transport} (when built from properties; injected only
 * by qualifier), {@code relay}, {@code relayLifecycle} and, with the PostgreSQL driver present, {@code wakeUpListener};
 * with outbox4j-micrometer and Micrometer present, {@code metrics} (tag {@code outbox=<name>}).
 *
 * <p>Runs while the configuration is read, before any bean exists, so a mix of the two property forms fails start-up
 * before anything is built from either.
 */
final class NamedOutboxesRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {
  private static final boolean METRICS = present("dev.outbox4j.micrometer.OutboxMetrics")
      && present("io.micrometer.core.instrument.MeterRegistry");
  private static final boolean POSTGRES = present("org.postgresql.PGConnection");

  private @Nullable Environment environment;

  /** Created by Spring when the auto-configuration imports it. */
  NamedOutboxesRegistrar() {}

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    Environment env = Objects.requireNonNull(environment, "environment");
    Map<String, NamedOutbox> named = OutboxForms.named(env);
    OutboxForms.refuseMixing(env, named.keySet());
    if (!(registry instanceof ConfigurableListableBeanFactory beans)) {
      throw new IllegalStateException("outbox4j.outboxes needs a ConfigurableListableBeanFactory, was "
          + registry.getClass().getName());
    }
    NamedOutboxes outboxes = new NamedOutboxes(named, beans);
    registry.registerBeanDefinition(NamedOutboxes.BEAN, new RootBeanDefinition(NamedOutboxes.class, () -> outboxes));
    named.forEach((name, settings) -> {
      register(registry, name, "store", JdbcOutboxStore.class, () -> outboxes.newStore(name))
          .setDestroyMethodName("close");
      register(registry, name, "migration", Outbox4jSchemaMigration.class, () -> outboxes.newMigration(name));
      register(registry, name, "outbox", TransactionalOutbox.class, () -> outboxes.newTransactionalOutbox(name));
      if (METRICS) {
        Metrics.register(registry, name, outboxes);
      }
      if (!NamedOutboxes.hasRelay(settings)) {
        return;
      }
      if (settings.getTransport().getBean() == null) {
        AbstractBeanDefinition transport =
            register(registry, name, "transport", Transport.class, () -> outboxes.newTransport(name));
        transport.setDefaultCandidate(false); // the application's own Transport stays the one injected by type
        transport.setDestroyMethodName(AbstractBeanDefinition.INFER_METHOD);
      }
      register(registry, name, "relay", Relay.class, () -> outboxes.newRelay(name))
          .setDestroyMethodName("close");
      register(registry, name, "relayLifecycle", RelayLifecycle.class, () -> outboxes.newRelayLifecycle(name));
      if (POSTGRES && settings.getRelay().getWakeUpListener().isEnabled()) {
        register(registry, name, "wakeUpListener", WakeUpListenerLifecycle.class,
            () -> outboxes.newWakeUpListener(name));
      }
    });
  }

  static <T> AbstractBeanDefinition register(BeanDefinitionRegistry registry, String name, String part,
      Class<T> type, Supplier<T> supplier) {
    RootBeanDefinition definition = new RootBeanDefinition(type, supplier);
    definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, name));
    definition.setAttribute(NamedOutboxes.OUTBOX_ATTRIBUTE, name);
    registry.registerBeanDefinition(NamedOutboxes.beanName(name, part), definition);
    return definition;
  }

  private static boolean present(String className) {
    return ClassUtils.isPresent(className, NamedOutboxesRegistrar.class.getClassLoader());
  }

  /** Touches outbox4j-micrometer only when it is on the class path. */
  private static final class Metrics {
    static void register(BeanDefinitionRegistry registry, String name, NamedOutboxes outboxes) {
      NamedOutboxesRegistrar.register(registry, name, "metrics", OutboxMetrics.class,
          () -> OutboxMetrics.builder(outboxes.store(name)).withName(name).build());
    }
  }
}
