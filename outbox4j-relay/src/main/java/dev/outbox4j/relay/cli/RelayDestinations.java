package dev.outbox4j.relay.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.Yaml;

/**
 * Asks a running relay which destinations it paused, through its dashboard's {@code /api/destinations}. An outage pause
 * lives in the relay that judged it (each relay judges its own deliveries), so a command that reads only the database
 * cannot see it; this is how {@code status --relay URL} shows it. Over HTTPS it trusts the JVM's certificate
 * authorities, or the PEM file it is given ({@code --relay-ca}, {@code server.tls.ca}): a relay's certificate from a
 * private authority is common. Stateless; thread-safe.
 */
final class RelayDestinations {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private RelayDestinations() {}

  /**
   * @param relay the relay's dashboard address, for example {@code http://127.0.0.1:8080}
   * @param ca a PEM file of the authority (or the certificate) to trust for an {@code https} address, or {@code null}
   *     for the JVM's authorities only
   * @return the relay's paused destinations, each as the API describes it (destination, cause, state, pausedSince,
   *     nextSendAt, nextSend, failedProbes, lastError)
   * @throws IOException if the relay cannot be reached, is not trusted, or answers anything but its JSON; the message
   *     says which and what to do
   * @throws IllegalArgumentException if the CA file cannot be read as a certificate, naming it
   * @throws InterruptedException if interrupted while waiting for the answer
   */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> paused(URI relay, java.nio.file.@org.jspecify.annotations.Nullable Path ca)
      throws IOException, InterruptedException {
    URI api = relay.resolve("/api/destinations");
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(TIMEOUT);
    if (ca != null) {
      builder.sslContext(dev.outbox4j.spi.TlsSettings.builder().withTrustStore(ca, null).build().sslContext());
    }
    HttpClient client = builder.build();
    HttpResponse<String> response;
    try {
      response = client.send(HttpRequest.newBuilder(api).timeout(TIMEOUT).GET().build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (javax.net.ssl.SSLHandshakeException e) {
      throw new IOException("the relay's certificate is not trusted (" + e.getMessage() + "): give the PEM file of"
          + " the authority that signed it, or of the certificate itself, with --relay-ca FILE or server.tls.ca"
          + (ca == null ? "" : " (trusted now: " + ca + ")"), e);
    } catch (java.net.http.HttpConnectTimeoutException e) {
      throw new IOException("no connection within " + TIMEOUT.toSeconds() + " s", e);
    } catch (java.net.ConnectException e) {
      throw new IOException("nothing answers at " + relay.getHost() + ":" + port(relay) + " (" + e + ")", e);
    }
    if (response.statusCode() != 200) {
      throw new IOException(api + " answered HTTP " + response.statusCode());
    }
    Object body;
    try {
      body = new Yaml().load(response.body()); // JSON is YAML: the relay app's YAML reader parses it
    } catch (RuntimeException e) {
      throw new IOException(api + " did not answer JSON: " + e.getMessage(), e);
    }
    if (!(body instanceof Map<?, ?> map) || !(map.get("paused") instanceof List<?> paused)) {
      throw new IOException(api + " answered JSON without a 'paused' list");
    }
    List<Map<String, Object>> result = new ArrayList<>();
    for (Object row : paused) {
      if (row instanceof Map<?, ?> destination) {
        result.add((Map<String, Object>) destination);
      }
    }
    return result;
  }

  private static int port(URI relay) {
    return relay.getPort() != -1 ? relay.getPort() : "https".equalsIgnoreCase(relay.getScheme()) ? 443 : 80;
  }
}
