package dev.outbox4j.spring.modulith;

import dev.outbox4j.spring.OutboxEventSerializer;
import dev.outbox4j.spring.TransactionalOutbox;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.support.DelegatingEventExternalizer;

/**
 * Hands Spring Modulith's externalized events to the outbox: {@link ModulithEventWriter} on the application's
 * {@link EventExternalizationConfiguration}.
 *
 * <p>The configuration is the application's bean, or Modulith's default one (events annotated {@code @Externalized}
 * in the application's packages), or, when Modulith's externalization auto-configuration is switched off (which is
 * how its own broker externalizers are switched off), the same default built here. Runs after the starter's
 * auto-configuration and needs its {@link TransactionalOutbox}; off with {@code outbox4j.modulith.enabled=false}.
 */
@AutoConfiguration(
    afterName = {"dev.outbox4j.spring.autoconfigure.Outbox4jAutoConfiguration",
        "dev.outbox4j.spring.autoconfigure.Outbox4jJacksonAutoConfiguration",
        "org.springframework.modulith.events.config.EventExternalizationAutoConfiguration"})
@ConditionalOnClass(EventExternalizationConfiguration.class)
@ConditionalOnBean(TransactionalOutbox.class)
@ConditionalOnProperty(prefix = "outbox4j.modulith", name = "enabled", matchIfMissing = true)
public class Outbox4jModulithAutoConfiguration {
  private static final String MODULITH_SWITCH = "spring.modulith.events.externalization.enabled";

  /** Creates the configuration; called by Spring. */
  public Outbox4jModulithAutoConfiguration() {}

  /**
   * @param beans the bean factory, for the application's packages
   * @return Modulith's default configuration: the {@code @Externalized} events of the application's packages
   */
  @Bean
  @ConditionalOnMissingBean
  public EventExternalizationConfiguration outbox4jEventExternalizationConfiguration(BeanFactory beans) {
    return EventExternalizationConfiguration.defaults(AutoConfigurationPackages.get(beans)).build();
  }

  /**
   * @param configuration which events are externalized
   * @param outbox writes in the publisher's transaction
   * @param serializer the payload serializer (the application's JSON mapper by default)
   * @param beans where routing expressions resolve {@code @bean} references, and where Modulith's own externalizers
   *     are looked for
   * @return the writer
   * @throws IllegalStateException if Modulith's own externalizer is also in the application (it would send every
   *     externalized event a second time), or if there is no serializer
   */
  @Bean
  @ConditionalOnMissingBean
  public ModulithEventWriter outbox4jModulithEventWriter(EventExternalizationConfiguration configuration,
      TransactionalOutbox outbox, ObjectProvider<OutboxEventSerializer> serializer, ListableBeanFactory beans) {
    List<String> externalizers = List.of(beans.getBeanNamesForType(DelegatingEventExternalizer.class, true, false));
    if (!externalizers.isEmpty()) {
      throw new IllegalStateException("Spring Modulith's own event externalizer (bean " + externalizers
          + ") would send every externalized event a second time, beside outbox4j: switch it off with "
          + MODULITH_SWITCH + "=false (and drop the spring-modulith-events-<broker> dependency), or switch outbox4j's "
          + "off with outbox4j.modulith.enabled=false");
    }
    OutboxEventSerializer payloads = serializer.getIfAvailable();
    if (payloads == null) {
      throw new IllegalStateException("outbox4j cannot serialize externalized events: no OutboxEventSerializer bean "
          + "(add spring-boot-starter-jackson, or define one)");
    }
    StandardEvaluationContext expressions = new StandardEvaluationContext();
    expressions.setBeanResolver(new BeanFactoryResolver(beans));
    return new ModulithEventWriter(configuration, outbox, payloads, expressions);
  }
}
