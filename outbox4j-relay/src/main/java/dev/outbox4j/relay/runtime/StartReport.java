package dev.outbox4j.relay.runtime;

import dev.outbox4j.DurationFormat;
import dev.outbox4j.RelayBuilder;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * What a starting relay says it does, once, at INFO on the logger {@value #LOGGER}: each transport with its mode, its
 * answer bound and the settings that bound comes from; then the delivery timeout and the lease in force, and whether
 * each was configured, is the default, or was derived from the transports' answer bounds. One record per line, so
 * that the block reads the same in both log formats.
 *
 * <p>Why the relay's derivation is repeated here: {@link RelayBuilder#build()} fits an unset delivery timeout and
 * lease to the transports' longest answer bound and does not report what it chose; this class applies the same two
 * documented rules ({@link RelayBuilder#DEFAULT_DELIVERY_TIMEOUT}, {@link RelayBuilder#DEFAULT_LEASE}) to say which
 * value is in force and why.
 *
 * <p>Stateless and thread-safe.
 */
final class StartReport {
  /** The logger of the start block. */
  static final String LOGGER = "dev.outbox4j.relay.start";
  private static final Map<String, List<String>> BOUND_KEYS = Map.of(
      "http", List.of("connect-timeout", "request-timeout"),
      "kafka", List.of("max.block", "delivery.timeout"),
      "kafka transactional", List.of("transactions.start-bound", "transactions.timeout", "transactions.abort-sweep",
          "transactions.clock-skew"),
      "rabbitmq", List.of("confirm-timeout"),
      "nats", List.of("ack-timeout"));

  private StartReport() {}

  /**
   * @param config the configuration
   * @param transports the built transports by name
   * @return the block's lines
   */
  static List<String> lines(RelayConfig config, Map<String, Transport> transports) {
    List<String> lines = new ArrayList<>();
    Duration longest = Duration.ZERO;
    for (RelayConfig.TransportSettings settings : new TreeMap<>(config.transports()).values()) {
      Transport transport = transports.get(settings.name());
      if (transport == null) {
        continue;
      }
      TreeSet<String> destinations = new TreeSet<>();
      config.destinations().forEach((destination, name) -> {
        if (name.equals(settings.name())) {
          destinations.add(destination);
        }
      });
      if (destinations.isEmpty()) {
        continue; // built, but nothing is routed to it: its bound does not count
      }
      boolean atomic = transport.atomicBatches(destinations.first()) != null;
      String mode = atomic ? "transactional (each batch one transaction)" : "plain";
      Duration bound = transport.maxAnswerTime();
      longest = bound.compareTo(longest) > 0 ? bound : longest;
      lines.add("transport " + settings.name() + " (" + settings.type() + "): mode " + mode + ", answer bound "
          + DurationFormat.format(bound) + boundOrigin(settings, atomic) + ", destinations " + destinations);
    }
    Choice timeout = choose(config.relay().deliveryTimeout(), "relay.delivery-timeout", longest,
        RelayBuilder.DEFAULT_DELIVERY_TIMEOUT, "derived from transport settings: the longest answer bound");
    Choice lease = choose(config.relay().lease(), "relay.lease", timeout.value().multipliedBy(3),
        RelayBuilder.DEFAULT_LEASE, "derived: 3 x the delivery timeout");
    lines.add("delivery timeout " + timeout);
    lines.add("lease " + lease);
    return lines;
  }

  /** A value in force and where it came from. */
  private record Choice(Duration value, String origin) {
    @Override
    public String toString() {
      return DurationFormat.format(value) + " (" + origin + ")";
    }
  }

  /** The configured value, else the fitted one where it exceeds the default, else the default. */
  private static Choice choose(@Nullable Duration configured, String key, Duration fitted, Duration fallback,
      String derivation) {
    if (configured != null) {
      return new Choice(configured, "config " + key);
    }
    if (fitted.compareTo(fallback) > 0) {
      return new Choice(fitted, derivation + ", above the default " + DurationFormat.format(fallback));
    }
    return new Choice(fallback, "default");
  }

  /** Logs the block; each line names the outbox when it is not the one {@value RelayConfig#DEFAULT_OUTBOX}. */
  static void log(RelayConfig config, Map<String, Transport> transports) {
    System.Logger logger = System.getLogger(LOGGER);
    String outbox = config.firstOutboxName();
    String prefix = outbox.equals(RelayConfig.DEFAULT_OUTBOX) ? "" : "outbox " + outbox + ": ";
    lines(config, transports).forEach(line -> logger.log(System.Logger.Level.INFO, prefix + line));
  }

  /** @return " (from a + b: defaults)", naming the settings configured */
  private static String boundOrigin(RelayConfig.TransportSettings settings, boolean atomic) {
    List<String> keys = BOUND_KEYS.get(settings.type() + (atomic ? " transactional" : ""));
    if (keys == null) {
      keys = BOUND_KEYS.get(settings.type());
    }
    if (keys == null) {
      return "";
    }
    List<String> configured = keys.stream().filter(settings.properties()::containsKey).toList();
    return " (from transport settings " + String.join(" + ", keys) + ": "
        + (configured.isEmpty() ? "defaults" : "configured " + String.join(", ", configured)
            + (configured.size() == keys.size() ? "" : ", the rest defaults")) + ")";
  }
}
