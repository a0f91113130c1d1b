package dev.outbox4j.http;

import dev.outbox4j.spi.TransportProperties;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code Authorization} header value of each endpoint alias that has credentials: a bearer token or a user name
 * with a password (basic authentication). The values are secrets: never logged, never in {@link #toString()}.
 *
 * <p>Immutable once built by the transport's builder; thread-safe to read.
 */
final class EndpointCredentials {
  private final Map<String, String> authorization;

  private EndpointCredentials(Map<String, String> authorization) {
    this.authorization = Map.copyOf(authorization);
  }

  static EndpointCredentials of(Map<String, String> authorization) {
    return new EndpointCredentials(authorization);
  }

  static String bearer(String token) {
    if (Objects.requireNonNull(token, "bearerToken").isBlank()) {
      throw new IllegalArgumentException("bearer token must not be blank");
    }
    return "Bearer " + token;
  }

  static String basic(String user, String password) {
    Objects.requireNonNull(user, "username");
    Objects.requireNonNull(password, "password");
    if (user.contains(":")) {
      throw new IllegalArgumentException("basic-auth user name must not contain ':'");
    }
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Reads {@code auth.<alias>.bearer-token}, or {@code auth.<alias>.username} with {@code auth.<alias>.password}, for
   * each alias (each may be given as {@code ...-file}).
   *
   * @return alias → header value, for the aliases that have credentials
   * @throws IllegalArgumentException naming the key when a pair is incomplete or both kinds are given
   */
  static Map<String, String> fromProperties(TransportProperties props, Iterable<String> aliases) {
    Map<String, String> result = new LinkedHashMap<>();
    for (String alias : aliases) {
      String prefix = "auth." + alias + ".";
      Optional<String> token = props.string(prefix + "bearer-token");
      Optional<String> user = props.string(prefix + "username");
      Optional<String> password = props.string(prefix + "password");
      if (user.isPresent() != password.isPresent()) {
        throw new IllegalArgumentException("http properties '" + prefix + "username' and '" + prefix
            + "password' go together");
      }
      if (token.isPresent() && user.isPresent()) {
        throw new IllegalArgumentException("http endpoint '" + alias + "': give either '" + prefix
            + "bearer-token' or a user name and password, not both");
      }
      token.ifPresent(value -> result.put(alias, bearer(value)));
      user.ifPresent(name -> result.put(alias, basic(name, password.get())));
    }
    return result;
  }

  /** @return the header value for the alias, if it has credentials */
  Optional<String> authorization(String alias) {
    return Optional.ofNullable(authorization.get(alias));
  }

  @Override
  public String toString() {
    return "EndpointCredentials" + authorization.keySet();
  }
}
