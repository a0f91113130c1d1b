package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.NamedOutbox;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The two forms of the properties: the single outbox ({@code outbox4j.tables.*}, {@code outbox4j.relay.*}, ...) and
 * several named outboxes ({@code outbox4j.outboxes.<name>.*}). Any named outbox selects the second form, in which the
 * single outbox's auto-configuration backs off; the single form's own keys are then refused, naming each, rather than
 * silently ignored or applied to an outbox the application did not name.
 */
final class OutboxForms {
  /** The {@code outbox4j.*} keys that configure the single outbox only (or need its single DataSource). */
  static final Set<String> SINGLE_OUTBOX_KEYS = Set.of("tables", "write", "limits", "relay", "retry", "transport",
      "health", "cloudevents", "migrate", "keep-delivered", "claim-strategy", "key-numbering", "inbox",
      "flow-ledger");

  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");
  private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("outbox4j");

  private OutboxForms() {}

  /**
   * @return the named outboxes, in the order configured; empty in the single form
   * @throws IllegalArgumentException if a name is not 1 to 63 lower-case letters, digits, '-' and '_'
   */
  static Map<String, NamedOutbox> named(Environment environment) {
    Map<String, NamedOutbox> named = Binder.get(environment)
        .bind("outbox4j.outboxes", Bindable.mapOf(String.class, NamedOutbox.class)).orElse(Map.of());
    for (String name : named.keySet()) {
      if (!NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("outbox4j.outboxes: an outbox's name must be 1 to 63 lower-case letters, "
            + "digits, '-' and '_', starting with a letter or digit; was '" + name + "'");
      }
    }
    return named;
  }

  /** @return the single-outbox keys set in the environment ({@code tables}, {@code relay}, ...), sorted */
  static Set<String> singleOutboxKeysSet(Environment environment) {
    Set<String> found = new TreeSet<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (source instanceof IterableConfigurationPropertySource iterable) {
        iterable.filter(ROOT::isAncestorOf).stream()
            .map(name -> name.getElement(1, ConfigurationPropertyName.Form.DASHED))
            .filter(SINGLE_OUTBOX_KEYS::contains)
            .forEach(found::add);
      }
    }
    return found;
  }

  /**
   * Refuses the single outbox's keys beside named outboxes.
   *
   * @throws IllegalStateException naming the keys, when named outboxes and single-outbox keys are both set
   */
  static void refuseMixing(Environment environment, Set<String> names) {
    Set<String> single = singleOutboxKeysSet(environment);
    if (!names.isEmpty() && !single.isEmpty()) {
      throw new IllegalStateException("outbox4j.outboxes (" + String.join(", ", names) + ") and the single outbox's "
          + "properties " + single.stream().map(key -> "outbox4j." + key).toList() + " are both set: with several "
          + "outboxes, set these under outbox4j.outboxes.<name>. (the inbox and the flow ledger are beans of your own "
          + "there: JdbcInbox.builder(dataSource), JdbcFlowLedger.builder(dataSource, codec))");
    }
  }

  /** Matches when no named outbox is configured: the single outbox's auto-configuration. */
  static final class Single extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      return named(context.getEnvironment()).isEmpty() ? ConditionOutcome.match("no outbox4j.outboxes")
          : ConditionOutcome.noMatch("outbox4j.outboxes names several outboxes");
    }
  }

  /** Matches when at least one named outbox is configured. */
  static final class Several extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      Map<String, NamedOutbox> named = named(context.getEnvironment());
      return named.isEmpty() ? ConditionOutcome.noMatch("no outbox4j.outboxes")
          : ConditionOutcome.match("outbox4j.outboxes: " + named.keySet());
    }
  }
}
