package dev.outbox4j.relay.doctor;

import dev.outbox4j.jdbc.doctor.Finding;
import dev.outbox4j.relay.config.RelayConfig;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the relay's configuration shows about its connections: TLS that verifies nothing (NATS {@code opentls://}, a
 * transport's {@code tls.hostname-verification: false}), secrets or signed webhooks sent over plain {@code http://}
 * beyond this host, the relay's own server reachable beyond this host without TLS, and the Kafka progress topic.
 *
 * <p>Stateless and thread-safe.
 */
final class ConfigChecks {
  private ConfigChecks() {}

  static List<Finding> run(RelayConfig config, ProgressTopicCheck progressTopic) {
    List<Finding> findings = new ArrayList<>();
    for (RelayConfig.TransportSettings transport : config.transports().values()) {
      Map<String, String> properties = transport.properties();
      String name = "transport '" + transport.name() + "'";
      if ("false".equalsIgnoreCase(properties.get("tls.hostname-verification"))) {
        findings.add(Finding.unsafe("tls", name + " has tls.hostname-verification: false: any certificate its trust"
            + " store accepts is taken for the server's, so anyone on the path can read and alter messages",
            "remove tls.hostname-verification (on by default)"));
      }
      switch (transport.type()) {
        case "nats" -> nats(name, properties, findings);
        case "http" -> http(name, properties, findings);
        case "kafka" -> {
          if ("true".equalsIgnoreCase(properties.get("transactions.enabled"))) {
            findings.addAll(progressTopic.check(transport));
          }
        }
        default -> { }
      }
    }
    RelayConfig.Server server = config.server();
    if (server.enabled() && server.tls() == null && !isLoopback(server.bind())) {
      // INFO, not UNSAFE: no delivery guarantee rests on it, and a container binds beyond loopback behind its own proxy
      findings.add(Finding.info("tls", "the relay's server listens on " + server.bind() + " without TLS: the admin"
          + " token, quarantine reasons and the audit log cross the network readable", "server.tls.certificate and"
          + " server.tls.key, or server.bind: 127.0.0.1 behind a TLS-terminating proxy"));
    }
    if (findings.isEmpty()) {
      findings.add(Finding.ok("tls", "no connection in the configuration skips verification or sends secrets"
          + " unencrypted"));
    }
    return findings;
  }

  private static void nats(String name, Map<String, String> properties, List<Finding> findings) {
    String servers = properties.getOrDefault("servers", "");
    if (servers.toLowerCase(Locale.ROOT).contains("opentls://")) {
      findings.add(Finding.unsafe("tls", name + " uses opentls://, which trusts every certificate: anyone on the path"
          + " can read and alter messages", "tls:// (the JVM's trust store, hostname verified) or tls:// with"
          + " tls.trust-store"));
    }
  }

  private static void http(String name, Map<String, String> properties, List<Finding> findings) {
    boolean signed = properties.containsKey("signing-secret") || properties.containsKey("signing-ed25519-key");
    properties.forEach((key, value) -> {
      if (!key.startsWith("endpoint.")) {
        return;
      }
      String alias = key.substring("endpoint.".length());
      URI uri;
      try {
        uri = URI.create(value.trim());
      } catch (IllegalArgumentException e) {
        return; // the transport refuses it at start, naming the key
      }
      if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || isLoopback(uri.getHost())) {
        return;
      }
      boolean credentials = properties.keySet().stream().anyMatch(k -> k.startsWith("auth." + alias + "."));
      if (credentials || signed) {
        findings.add(Finding.unsafe("tls", name + " sends " + (credentials ? "credentials" : "signed webhooks")
            + " for '" + alias + "' over plain http:// to " + uri.getHost() + ": anyone on the path reads "
            + (credentials ? "and reuses them" : "them and can replay them within the receiver's tolerance"),
            "an https:// endpoint"));
      }
    });
  }

  static boolean isLoopback(String host) {
    String name = host.toLowerCase(Locale.ROOT).replace("[", "").replace("]", "");
    return name.equals("localhost") || name.startsWith("127.") || name.equals("::1");
  }
}
