package dev.outbox4j.relay.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import dev.outbox4j.relay.server.Json;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JSON format: one object per line, {@code {"time":…,"level":…,"logger":…,"thread":…,"message":…}}, then the
 * record's context fields ({@code destination}, {@code key} and any other MDC entry or SLF4J key-value pair, as
 * strings), then {@code "exception"} with the whole stack trace in one string where the record has one. A field whose
 * name the record sets twice keeps the first value; the fixed fields always win.
 *
 * <p>Why our own encoder: the few fields a log pipeline needs are twenty lines here, where a JSON encoder library
 * would bring Jackson and its configuration into the jar for this alone.
 *
 * <p>Thread-safe (stateless).
 */
final class JsonLineEncoder extends EncoderBase<ILoggingEvent> {
  @Override
  public byte[] headerBytes() {
    return new byte[0];
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    Map<String, Object> record = new LinkedHashMap<>();
    record.put("time", LogRecords.time(event));
    record.put("level", event.getLevel().toString());
    record.put("logger", event.getLoggerName());
    record.put("thread", event.getThreadName());
    record.put("message", event.getFormattedMessage());
    LogRecords.fields(event).forEach(record::putIfAbsent);
    IThrowableProxy error = event.getThrowableProxy();
    if (error != null) {
      record.put("exception", ThrowableProxyUtil.asString(error));
    }
    return (Json.write(record) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public byte[] footerBytes() {
    return new byte[0];
  }
}
