package dev.outbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.spring.autoconfigure.Outbox4jProperties;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.convert.ApplicationConversionService;
import tools.jackson.databind.json.JsonMapper;

/**
 * The generated configuration metadata (what IDEs complete) documents every {@code outbox4j.*} property, and each
 * default it states is the value an unconfigured {@link Outbox4jProperties} holds, which is the core's constant.
 */
class ConfigurationMetadataTest {

  @Test
  @SuppressWarnings("unchecked")
  void every_documented_default_is_the_properties_own_default() throws Exception {
    Map<String, Object> metadata;
    try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      metadata = JsonMapper.builder().build().readValue(in, Map.class);
    }
    BeanWrapperImpl defaults = new BeanWrapperImpl(new Outbox4jProperties());
    List<String> checked = new ArrayList<>();
    for (Map<String, Object> property : (List<Map<String, Object>>) metadata.get("properties")) {
      String name = (String) property.get("name");
      if (!name.startsWith("outbox4j.")) {
        continue;
      }
      assertThat(property.get("description")).as("description of " + name).isNotNull();
      Object documented = property.get("defaultValue");
      if (documented == null) {
        continue;
      }
      Object actual = defaults.getPropertyValue(camel(name.substring("outbox4j.".length())));
      assertThat(normalize(documented, actual)).as(name).isEqualTo(normalize(actual, actual));
      checked.add(name);
    }
    assertThat(checked).contains("outbox4j.retry.give-up-after", "outbox4j.relay.batch-size", "outbox4j.retry.cap",
        "outbox4j.limits.max-payload-bytes", "outbox4j.tables.prefix", "outbox4j.flow-ledger.max-state-bytes");
  }

  private static Object normalize(Object value, Object target) {
    if (target instanceof Duration) {
      return ApplicationConversionService.getSharedInstance().convert(value, Duration.class);
    }
    if (target instanceof Enum<?> constant) {
      return value.toString().replace('-', '_').toUpperCase(java.util.Locale.ROOT);
    }
    if (target instanceof Number) {
      return Double.parseDouble(value.toString());
    }
    return value.toString();
  }

  private static String camel(String dashed) {
    StringBuilder out = new StringBuilder();
    boolean upper = false;
    for (char c : dashed.toCharArray()) {
      if (c == '-') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.toString();
  }
}
