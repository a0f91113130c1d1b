package dev.outbox4j.jdbc;

import dev.outbox4j.OutboxException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Encodes message headers as a JSON object of strings ({@code {"traceparent":"00-..."}}), the column format any
 * language can write, and decodes it back in the same order.
 *
 * <p>Why our own thirty lines instead of a JSON library: the format is one flat object of strings, the stores must
 * not drag a JSON dependency (and its version conflicts) into users' class paths, and the decoder must be strict so a
 * malformed row written by another application is refused (and the row quarantined as unreadable, see
 * {@link OutboxRows#read}) instead of being sent with its headers lost.
 *
 * <p>Stateless and thread-safe.
 */
final class HeaderJson {
  private HeaderJson() {}

  static String encode(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return "{}";
    }
    StringBuilder out = new StringBuilder(64 * headers.size());
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, String> header : headers.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      string(out, header.getKey());
      out.append(':');
      string(out, header.getValue());
    }
    return out.append('}').toString();
  }

  private static void string(StringBuilder out, String value) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /**
   * @param json a JSON object whose values are all strings
   * @return its members in document order
   * @throws OutboxException if the text is not such an object
   */
  static Map<String, String> decode(String json) {
    Parser parser = new Parser(json);
    Map<String, String> headers = new LinkedHashMap<>();
    parser.skipSpace();
    parser.expect('{');
    parser.skipSpace();
    if (parser.peek() == '}') {
      parser.pos++;
    } else {
      while (true) {
        parser.skipSpace();
        String name = parser.string();
        parser.skipSpace();
        parser.expect(':');
        parser.skipSpace();
        headers.put(name, parser.string());
        parser.skipSpace();
        char next = parser.next();
        if (next == '}') {
          break;
        }
        if (next != ',') {
          throw parser.error("expected ',' or '}'");
        }
      }
    }
    parser.skipSpace();
    if (parser.pos != json.length()) {
      throw parser.error("unexpected text after the object");
    }
    return Collections.unmodifiableMap(headers);
  }

  private static final class Parser {
    private final String text;
    int pos;

    Parser(String text) {
      this.text = text;
    }

    char peek() {
      if (pos >= text.length()) {
        throw error("unexpected end");
      }
      return text.charAt(pos);
    }

    char next() {
      char c = peek();
      pos++;
      return c;
    }

    void expect(char c) {
      if (next() != c) {
        throw error("expected '" + c + "'");
      }
    }

    void skipSpace() {
      while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
        pos++;
      }
    }

    String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        char c = next();
        if (c == '"') {
          return out.toString();
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        char escaped = next();
        switch (escaped) {
          case '"', '\\', '/' -> out.append(escaped);
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'u' -> {
            if (pos + 4 > text.length()) {
              throw error("short \\u escape");
            }
            try {
              out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
            } catch (NumberFormatException e) {
              throw error("bad \\u escape");
            }
            pos += 4;
          }
          default -> throw error("bad escape \\" + escaped);
        }
      }
    }

    OutboxException error(String problem) {
      return new OutboxException("headers column is not a JSON object of strings: " + problem + " at offset " + pos);
    }
  }
}
