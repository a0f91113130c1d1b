package dev.outbox4j.relay.server;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes the few JSON documents the dashboard reads, from maps, lists, strings, numbers and booleans. A full JSON
 * library would be the jar's only use of one. Public for the operator commands ({@code status --json}); not API.
 *
 * <p>Stateless and thread-safe.
 */
public final class Json {
  private Json() {}

  /**
   * @param value a map (keys written as strings), list, string, number, boolean or {@code null}; a NaN or infinite
   *     double is written as {@code null}
   * @return the value as JSON text
   */
  public static String write(@Nullable Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value);
    return out.toString();
  }

  private static void write(StringBuilder out, @Nullable Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String text) {
      string(out, text);
    } else if (value instanceof Double number) {
      out.append(number.isNaN() || number.isInfinite() ? "null" : trim(number));
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
      while (entries.hasNext()) {
        Map.Entry<?, ?> entry = entries.next();
        string(out, String.valueOf(entry.getKey()));
        out.append(':');
        write(out, entry.getValue());
        if (entries.hasNext()) {
          out.append(',');
        }
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        write(out, list.get(i));
      }
      out.append(']');
    } else {
      string(out, value.toString());
    }
  }

  private static String trim(double number) {
    if (number == Math.rint(number) && Math.abs(number) < 1e15) {
      return Long.toString((long) number);
    }
    return String.format(java.util.Locale.ROOT, "%.3f", number);
  }

  private static void string(StringBuilder out, String text) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
