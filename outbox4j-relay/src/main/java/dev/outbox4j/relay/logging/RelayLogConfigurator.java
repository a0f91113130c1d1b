package dev.outbox4j.relay.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Logback's first configuration in this process (found through {@code META-INF/services}): the format
 * {@value RelayLogging#FORMAT_VARIABLE} names, plain when it is unset or unreadable. Without it Logback would log
 * DEBUG in its own pattern until {@code run} had read its configuration.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class RelayLogConfigurator extends ContextAwareBase implements Configurator {
  /** Called by Logback's service loader. */
  public RelayLogConfigurator() {}

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    LogFormat format;
    try {
      format = RelayLogging.formatOf(System.getenv());
    } catch (IllegalArgumentException e) {
      format = LogFormat.PLAIN; // the command that reads the environment refuses it, naming the variable
    }
    RelayLogging.configure(context, format);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
