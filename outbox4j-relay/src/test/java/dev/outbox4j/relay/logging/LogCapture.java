package dev.outbox4j.relay.logging;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * Captures what one logger (and its children) writes in this JVM, as {@code LEVEL message} lines, whatever way it was
 * logged (System.Logger, java.util.logging or SLF4J all end in Logback here). Close to stop capturing.
 */
public final class LogCapture implements AutoCloseable {
  private final Logger logger;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
    @Override
    protected void append(ILoggingEvent event) {
      lines.add(event.getLevel() + " " + event.getFormattedMessage());
    }
  };

  private LogCapture(String name) {
    RelayLogging.initialize();
    logger = (Logger) LoggerFactory.getLogger(name);
    appender.setContext(logger.getLoggerContext());
    appender.start();
    logger.addAppender(appender);
  }

  /**
   * @param name the logger's name
   * @return a capture of it, running
   */
  public static LogCapture of(String name) {
    return new LogCapture(name);
  }

  /** @return what was written so far, oldest first */
  public List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    appender.stop();
  }
}
