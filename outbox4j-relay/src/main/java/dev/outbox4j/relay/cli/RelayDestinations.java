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
 * cannot see it; this is how {@code status --relay URL} shows it. Stateless; thread-safe.
 */
final class RelayDestinations {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private RelayDestinations() {}

  /**
   * @param relay the relay's dashboard address, for example {@code http://127.0.0.1:8080}
   * @return the relay's paused destinations, each as the API describes it (destination, cause, state, pausedSince,
   *     nextProbeAt, failedProbes, lastError)
   * @throws IOException if the relay cannot be reached or answers anything but its JSON
   * @throws InterruptedException if interrupted while waiting for the answer
   */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> paused(URI relay) throws IOException, InterruptedException {
    URI api = relay.resolve("/api/destinations");
    HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(api).timeout(TIMEOUT).GET().build(),
        HttpResponse.BodyHandlers.ofString());
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
}
