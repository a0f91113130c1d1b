package dev.outbox4j.opentelemetry;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes the W3C trace context ({@code traceparent}, {@code tracestate}) in a message's header map.
 *
 * <p>Always the W3C format, whatever propagators the application configured: the outbox promises a W3C
 * {@code traceparent} header (SPEC §2), which every broker consumer can read. Stateless and thread-safe.
 */
final class TraceHeaders {
  /** The W3C trace-context header that carries trace id, parent span id and flags. */
  static final String TRACEPARENT = "traceparent";

  private static final TextMapPropagator W3C = W3CTraceContextPropagator.getInstance();

  private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public @Nullable String get(@Nullable Map<String, String> carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  };

  private TraceHeaders() {}

  /**
   * @param context the context to store
   * @return {@code traceparent} (and {@code tracestate} when there is one); empty when the context holds no valid span
   */
  static Map<String, String> of(Context context) {
    Map<String, String> headers = new LinkedHashMap<>();
    W3C.inject(context, headers, (carrier, key, value) -> {
      if (carrier != null) {
        carrier.put(key, value);
      }
    });
    return headers;
  }

  /**
   * @param headers a message's headers
   * @return the root context with the remote span the headers name; the root context alone when they name none
   */
  static Context extract(Map<String, String> headers) {
    return W3C.extract(Context.root(), headers, GETTER);
  }
}
