package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spring.Outbox4jCustomizer;
import dev.outbox4j.spring.RelayLifecycle;
import dev.outbox4j.spring.TransactionalOutbox;
import dev.outbox4j.spring.WakeUpListenerLifecycle;
import dev.outbox4j.spring.WithoutTransaction;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.NamedOutbox;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Several named outboxes ({@code outbox4j.outboxes.<name>.*}) and how each one's components are made: the bean
 * definitions {@link NamedOutboxesRegistrar} registers call the factory methods here, and the health contributor, the
 * endpoint and the event writer look the components up by outbox name.
 *
 * <p>Why one object for all names rather than one configuration class per outbox: Spring cannot repeat a
 * {@code @Configuration} per map entry, and each outbox's components depend on one another by name (its relay on its
 * store and transport, its writer on its relay for the wake-up), so the names of the beans are made in one place
 * ({@link #beanName}) and every lookup goes through it.
 *
 * <p>Each outbox's beans carry the qualifier of its name, so {@code @Qualifier("billing") TransactionalOutbox} (or
 * {@code JdbcOutboxStore}, {@code Relay}) injects that outbox's; and a relay registers every {@link RelayListener}
 * bean but another outbox's own (its metrics).
 *
 * <p>Thread-safe: immutable after construction; the bean factory makes each component once.
 */
final class NamedOutboxes {
  /** The bean name of this object. */
  static final String BEAN = "outbox4j.outboxes";
  /** The bean-definition attribute holding the name of the outbox a bean belongs to. */
  static final String OUTBOX_ATTRIBUTE = "outbox4j.outbox";

  private final Map<String, NamedOutbox> settings;
  private final ConfigurableListableBeanFactory beans;

  /**
   * @param settings each outbox's settings, by name, in the order configured
   * @param beans where the components and the application's beans live
   */
  NamedOutboxes(Map<String, NamedOutbox> settings, ConfigurableListableBeanFactory beans) {
    this.settings = new LinkedHashMap<>(settings);
    this.beans = Objects.requireNonNull(beans, "beans");
  }

  /** @return the outboxes' names, in the order configured */
  Set<String> names() {
    return settings.keySet();
  }

  /** @return the outbox's settings */
  NamedOutbox settings(String name) {
    NamedOutbox found = settings.get(name);
    if (found == null) {
      throw new IllegalArgumentException("no outbox '" + name + "'; there are " + names());
    }
    return found;
  }

  /** @return where the outbox's properties are: {@code outbox4j.outboxes.<name>} */
  static String property(String name) {
    return "outbox4j.outboxes." + name;
  }

  /** @return the bean name of one of the outbox's components: {@code outbox4j.<name>.<part>} */
  static String beanName(String name, String part) {
    return "outbox4j." + name + "." + part;
  }

  /** @return whether the outbox has a relay in this application: enabled, with a transport */
  static boolean hasRelay(NamedOutbox outbox) {
    return outbox.getRelay().isEnabled()
        && (outbox.getTransport().getType() != null || outbox.getTransport().getBean() != null);
  }

  // -------------------------------------------------------------------------------------------------- look-ups

  /** @return the outbox's store */
  JdbcOutboxStore store(String name) {
    settings(name);
    return beans.getBean(beanName(name, "store"), JdbcOutboxStore.class);
  }

  /** @return the outbox's Spring-facing writer */
  TransactionalOutbox transactionalOutbox(String name) {
    settings(name);
    return beans.getBean(beanName(name, "outbox"), TransactionalOutbox.class);
  }

  /** @return the outbox's relay, when it has one in this application */
  Optional<Relay> relay(String name) {
    String bean = beanName(name, "relay");
    return beans.containsBean(bean) ? Optional.of(beans.getBean(bean, Relay.class)) : Optional.empty();
  }

  /** @return the destinations the outbox's relay has paused; none without a relay */
  List<DestinationStatus> pausedDestinations(String name) {
    return relay(name).map(Relay::pausedDestinations).orElse(List.of());
  }

  /**
   * @return the {@code DataSource} bean the outbox's {@code datasource} names, or the application's only (or
   *     primary) one when unset
   * @throws IllegalStateException naming the property when there is no such bean, or no single one to default to
   */
  DataSource dataSource(String name) {
    String bean = settings(name).getDatasource();
    List<String> all = Arrays.asList(beans.getBeanNamesForType(DataSource.class));
    if (bean == null) {
      DataSource only = beans.getBeanProvider(DataSource.class).getIfUnique();
      if (only == null) {
        throw new IllegalStateException(property(name) + ".datasource is required: the application's DataSource "
            + "beans are " + all + ", none of them primary");
      }
      return only;
    }
    if (!beans.containsBean(bean) || !beans.isTypeMatch(bean, DataSource.class)) {
      throw new IllegalStateException(property(name) + ".datasource names no DataSource bean: '" + bean
          + "'; the DataSource beans are " + all);
    }
    return beans.getBean(bean, DataSource.class);
  }

  // -------------------------------------------------------------------------------------------------- factories

  JdbcOutboxStore newStore(String name) {
    return OutboxComponents.store(dataSource(name), settings(name), property(name), customizers());
  }

  Outbox4jSchemaMigration newMigration(String name) {
    NamedOutbox outbox = settings(name);
    return new Outbox4jSchemaMigration(OutboxComponents.migrates(outbox), store(name), null, null,
        outbox.getKeyNumbering());
  }

  TransactionalOutbox newTransactionalOutbox(String name) {
    NamedOutbox outbox = settings(name);
    DataSource dataSource = dataSource(name);
    TransactionTemplate own = outbox.getWrite().getWithoutTransaction() == WithoutTransaction.OWN_TRANSACTION
        ? new TransactionTemplate(new JdbcTransactionManager(dataSource)) : null;
    return new TransactionalOutbox(dataSource, OutboxComponents.writer(store(name), outbox, customizers()), own,
        () -> relay(name).ifPresent(Relay::wakeUp), name);
  }

  Transport newTransport(String name) {
    return NamedTransports.build(property(name) + ".transport", settings(name).getTransport());
  }

  Relay newRelay(String name) {
    NamedOutbox outbox = settings(name);
    return OutboxComponents.relay(store(name), transport(name), outbox, property(name), listeners(name),
        customizers());
  }

  RelayLifecycle newRelayLifecycle(String name) {
    beans.getBean(beanName(name, "migration")); // migrated before the relay's first claim
    return new RelayLifecycle(relay(name).orElseThrow());
  }

  WakeUpListenerLifecycle newWakeUpListener(String name) {
    return new WakeUpListenerLifecycle(store(name), dataSource(name), relay(name).orElseThrow());
  }

  // -------------------------------------------------------------------------------------------------- helpers

  private Transport transport(String name) {
    Outbox4jProperties.NamedTransport transport = settings(name).getTransport();
    String property = property(name) + ".transport";
    if (transport.getBean() == null) {
      return beans.getBean(beanName(name, "transport"), Transport.class);
    }
    if (transport.getType() != null) {
      throw new IllegalStateException(property + ".type and " + property + ".bean are both set: give one");
    }
    String bean = transport.getBean();
    if (!beans.containsBean(bean) || !beans.isTypeMatch(bean, Transport.class)) {
      throw new IllegalStateException(property + ".bean names no Transport bean: '" + bean + "'; the Transport "
          + "beans are " + Arrays.asList(beans.getBeanNamesForType(Transport.class)));
    }
    return beans.getBean(bean, Transport.class);
  }

  private List<Outbox4jCustomizer> customizers() {
    return beans.getBeanProvider(Outbox4jCustomizer.class).orderedStream().toList();
  }

  /** Every {@link RelayListener} bean but those that belong to another outbox, in order. */
  private List<RelayListener> listeners(String name) {
    return Arrays.stream(beans.getBeanNamesForType(RelayListener.class, true, false))
        .filter(bean -> name.equals(owner(bean)) || owner(bean) == null)
        .map(bean -> beans.getBean(bean, RelayListener.class))
        .sorted(AnnotationAwareOrderComparator.INSTANCE)
        .toList();
  }

  private @Nullable Object owner(String bean) {
    if (!beans.containsBeanDefinition(bean)) {
      return null;
    }
    BeanDefinition definition = beans.getBeanDefinition(bean);
    return definition.getAttribute(OUTBOX_ATTRIBUTE);
  }
}
