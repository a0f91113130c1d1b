package dev.outbox4j.relay.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;
import java.util.Map;

/**
 * The plain format: one line per record, {@code 2026-12-03T17:32:52.123Z WARN  dev.outbox4j.relay - message}, then the
 * record's context fields as {@code [destination=orders key=k-1]} where it has any. A record never spills onto a line
 * that could be read as a record of its own: line breaks in the message and every line of an exception's stack trace
 * are continued on lines that start with a tab.
 *
 * <p>Thread-safe (stateless).
 */
final class PlainLayout extends LayoutBase<ILoggingEvent> {
  @Override
  public String doLayout(ILoggingEvent event) {
    StringBuilder line = new StringBuilder(128);
    line.append(LogRecords.time(event)).append(' ');
    String level = event.getLevel().toString();
    line.append(level).append(" ".repeat(Math.max(1, 6 - level.length())));
    line.append(event.getLoggerName()).append(" - ");
    line.append(continued(event.getFormattedMessage()));
    Map<String, String> fields = LogRecords.fields(event);
    if (!fields.isEmpty()) {
      line.append(" [");
      fields.forEach((name, value) -> line.append(name).append('=').append(continued(value)).append(' '));
      line.setCharAt(line.length() - 1, ']');
    }
    line.append('\n');
    IThrowableProxy error = event.getThrowableProxy();
    if (error != null) {
      for (String stackLine : ThrowableProxyUtil.asString(error).split("\r?\n")) {
        line.append('\t').append(stackLine).append('\n');
      }
    }
    return line.toString();
  }

  private static String continued(String text) {
    return text.indexOf('\n') < 0 && text.indexOf('\r') < 0 ? text : text.replaceAll("\r?\n|\r", "\n\t");
  }
}
