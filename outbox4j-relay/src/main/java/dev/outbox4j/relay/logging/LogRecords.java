package dev.outbox4j.relay.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.event.KeyValuePair;

/** What both formats read from a record the same way. Stateless and thread-safe. */
final class LogRecords {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSX")
      .withZone(ZoneOffset.UTC);

  private LogRecords() {}

  /** @return the record's time, ISO-8601 in UTC with milliseconds: {@code 2026-12-03T17:32:52.123Z} */
  static String time(ILoggingEvent event) {
    return TIME.format(Instant.ofEpochMilli(event.getTimeStamp()));
  }

  /**
   * @return the record's context: its MDC entries, then its SLF4J key-value pairs (structured arguments), by name;
   *     a pair overrides an MDC entry of the same name
   */
  static Map<String, String> fields(ILoggingEvent event) {
    Map<String, String> mdc = event.getMDCPropertyMap();
    List<KeyValuePair> pairs = event.getKeyValuePairs();
    if ((mdc == null || mdc.isEmpty()) && (pairs == null || pairs.isEmpty())) {
      return Map.of();
    }
    Map<String, String> fields = new TreeMap<>();
    if (mdc != null) {
      fields.putAll(mdc);
    }
    if (pairs != null) {
      pairs.forEach(pair -> fields.put(pair.key, String.valueOf(pair.value)));
    }
    return fields;
  }
}
