package dev.outbox4j.quarkus.it;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * A test profile that gives its test classes an application of their own, booted apart from
 * {@link OutboxExtensionTest}'s: that one ends by closing its relay (the graceful shutdown test), and these classes need
 * a running one. This application also lists its quarantined entries over HTTP ({@code outbox4j.endpoint.enabled}).
 */
public class OwnApplication implements QuarkusTestProfile {
  @Override
  public Map<String, String> getConfigOverrides() {
    return Map.of("outbox4j.endpoint.enabled", "true");
  }
}
