package dev.outbox4j.relay.server;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Which {@code Host} headers the relay's server answers: an IP address, {@code localhost}, the address it is bound to,
 * or a name listed in {@code server.allowed-hosts}.
 *
 * <h2>Why</h2>
 * A page on any web site can make the operator's browser send requests to {@code 127.0.0.1:8080} (the relay's default
 * address) under its own name by DNS rebinding: the attacker's name resolves first to the attacker's server, then to
 * 127.0.0.1, and the browser, seeing one origin, lets the page read the answers, quarantine reasons and the audit log
 * among them. Every such request carries the attacker's name in {@code Host}. A request to an IP address carries that
 * address (a page cannot rebind an address), and {@code localhost} is never resolved by DNS in a browser, so those are
 * always answered; any other name must be configured. A request without a {@code Host} header (HTTP/1.0 tools; no
 * browser sends one) is answered.
 *
 * <p>Immutable and thread-safe.
 */
final class HostCheck {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern PORT = Pattern.compile(":\\d{1,5}$");

  private final Set<String> names;

  /**
   * @param bind the address the server is bound to (an address or a name)
   * @param allowed further names to answer ({@code server.allowed-hosts}), case-insensitive, without ports
   */
  HostCheck(String bind, List<String> allowed) {
    Set<String> all = new TreeSet<>();
    all.add("localhost");
    all.add(bind.toLowerCase(Locale.ROOT));
    allowed.forEach(name -> all.add(name.trim().toLowerCase(Locale.ROOT)));
    this.names = Set.copyOf(all);
  }

  /**
   * @param host the request's {@code Host} header, or {@code null} when it has none
   * @return whether the request may be answered
   */
  boolean allows(@Nullable String host) {
    if (host == null || host.isBlank()) {
      return true;
    }
    String name = host.trim().toLowerCase(Locale.ROOT);
    if (name.startsWith("[")) {
      int close = name.indexOf(']');
      return close > 1 && (close == name.length() - 1 || PORT.matcher(name.substring(close + 1)).matches()); // IPv6
    }
    name = PORT.matcher(name).replaceFirst("");
    if (name.endsWith(".")) {
      name = name.substring(0, name.length() - 1);
    }
    return IPV4.matcher(name).matches() || names.contains(name);
  }
}
