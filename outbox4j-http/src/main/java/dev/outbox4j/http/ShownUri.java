package dev.outbox4j.http;

import java.net.URI;

/**
 * An endpoint URL as delivery errors show it: without its query string, fragment or user information, which partners
 * use for tokens ({@code https://hooks.example/in?token=...}, {@code https://user:secret@hooks.example/}). Delivery
 * errors end up in the entry's {@code last_error}, on the dashboard, in the audit of pauses and in the logs, so none of
 * them may repeat those parts. The request itself goes to the URL as configured.
 *
 * <p>Stateless and thread-safe.
 */
final class ShownUri {
  /** What stands in for a removed query string. */
  static final String HIDDEN = "…";

  private ShownUri() {}

  /**
   * @param uri an endpoint URL
   * @return it as shown: scheme, host, port and path, {@code ?…} where it had a query string
   */
  static String of(URI uri) {
    StringBuilder shown = new StringBuilder();
    if (uri.getScheme() != null) {
      shown.append(uri.getScheme()).append("://");
    }
    if (uri.getHost() != null) {
      shown.append(uri.getHost().contains(":") && !uri.getHost().startsWith("[") ? "[" + uri.getHost() + "]"
          : uri.getHost());
    }
    if (uri.getPort() >= 0) {
      shown.append(':').append(uri.getPort());
    }
    if (uri.getRawPath() != null) {
      shown.append(uri.getRawPath());
    }
    if (uri.getRawQuery() != null) {
      shown.append('?').append(HIDDEN);
    }
    return shown.toString();
  }

  /**
   * @param text an error text that may repeat the endpoint URL or parts of it (a client exception's message)
   * @param uri the endpoint URL
   * @return the text with the URL's query string and user information, raw or decoded, replaced by {@link #HIDDEN}
   */
  static String scrub(String text, URI uri) {
    String scrubbed = text;
    for (String secret : new String[] {uri.getRawQuery(), uri.getQuery(), uri.getRawUserInfo(), uri.getUserInfo(),
        uri.getRawFragment(), uri.getFragment()}) {
      if (secret != null && !secret.isEmpty()) {
        scrubbed = scrubbed.replace(secret, HIDDEN);
      }
    }
    return scrubbed;
  }
}
