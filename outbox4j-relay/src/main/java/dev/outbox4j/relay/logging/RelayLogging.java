package dev.outbox4j.relay.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * The relay process's one logging backend: Logback, written to standard error in the {@link LogFormat} chosen.
 * Everything ends there: the relay's own lines and the libraries' {@link System.Logger} (through
 * {@code slf4j-jdk-platform-logging}), {@code java.util.logging} (the PostgreSQL driver, jnats; through
 * {@code jul-to-slf4j}), and the clients that log through SLF4J (HikariCP, Kafka, amqp-client).
 *
 * <p>Levels: INFO and above, the broker clients, drivers and the pool at WARN and above (Kafka's INFO alone is a
 * hundred lines of configuration per producer).
 *
 * <p>Why in code and not a {@code logback.xml}: the format is a setting of the relay's configuration, read after the
 * configuration file; a switch between two encoders is a few lines here, where XML would need Logback's conditional
 * processing and its Janino dependency. {@link RelayLogConfigurator} applies the environment's choice as soon as
 * anything logs; {@code run} applies the configuration's once it has read it.
 *
 * <p>Thread-safe: reconfiguration is synchronized; Logback's appenders are thread-safe.
 */
public final class RelayLogging {
  /** The environment variable that chooses the format before the configuration is read: {@code plain} or {@code json}. */
  public static final String FORMAT_VARIABLE = "OUTBOX4J_LOGGING_FORMAT";
  private static final String APPENDER = "outbox4j";
  private static final Map<String, Level> QUIET = Map.of("org.apache.kafka", Level.WARN, "kafka", Level.WARN,
      "com.zaxxer.hikari", Level.WARN, "com.rabbitmq", Level.WARN, "io.nats", Level.WARN, "org.postgresql", Level.WARN,
      "org.mariadb", Level.WARN, "org.h2", Level.WARN);
  private static LogFormat current = LogFormat.PLAIN;

  private RelayLogging() {}

  /**
   * @param environment the process environment
   * @return the format {@value #FORMAT_VARIABLE} names, or plain when it is unset
   * @throws IllegalArgumentException when the variable is neither {@code plain} nor {@code json}
   */
  public static LogFormat formatOf(Map<String, String> environment) {
    String value = environment.get(FORMAT_VARIABLE);
    return value == null || value.isBlank() ? LogFormat.PLAIN : LogFormat.of(value, "environment " + FORMAT_VARIABLE);
  }

  /**
   * Writes every log record of this process in that format from now on.
   *
   * @param format the format
   */
  public static synchronized void use(LogFormat format) {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      configure(context, format);
    }
  }

  /**
   * Starts Logback (its first configuration: {@link RelayLogConfigurator}) if nothing has yet, so that
   * {@code java.util.logging} is bridged before anything logs through it.
   */
  public static void initialize() {
    LoggerFactory.getILoggerFactory();
  }

  /** @return the format in force */
  public static synchronized LogFormat current() {
    return current;
  }

  static synchronized void configure(LoggerContext context, LogFormat format) {
    context.reset();
    LevelChangePropagator propagator = new LevelChangePropagator();
    propagator.setContext(context);
    propagator.setResetJUL(true);
    context.addListener(propagator);
    propagator.start();

    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName(APPENDER);
    console.setTarget("System.err");
    console.setEncoder(encoder(context, format));
    console.start();

    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(console);
    QUIET.forEach((name, level) -> context.getLogger(name).setLevel(level));
    bridgeJavaUtilLogging();
    current = format;
  }

  private static Encoder<ILoggingEvent> encoder(LoggerContext context, LogFormat format) {
    if (format == LogFormat.JSON) {
      JsonLineEncoder json = new JsonLineEncoder();
      json.setContext(context);
      json.start();
      return json;
    }
    PlainLayout layout = new PlainLayout();
    layout.setContext(context);
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> plain = new LayoutWrappingEncoder<>();
    plain.setContext(context);
    plain.setLayout(layout);
    plain.setCharset(StandardCharsets.UTF_8);
    plain.start();
    return plain;
  }

  /** Replaces java.util.logging's console handler by the bridge to SLF4J, once. */
  private static void bridgeJavaUtilLogging() {
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
  }
}
