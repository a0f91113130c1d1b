package dev.outbox4j.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.jdbc.JdbcDialect;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LazyDialectTest {
  @Test
  void it_delegates_every_method_of_the_dialect_interface_defaults_included() {
    List<String> missing = new ArrayList<>();
    for (Method method : JdbcDialect.class.getMethods()) {
      if (Modifier.isStatic(method.getModifiers())) {
        continue;
      }
      try {
        LazyDialect.class.getDeclaredMethod(method.getName(), method.getParameterTypes());
      } catch (NoSuchMethodException e) {
        missing.add(method.toString());
      }
    }
    assertThat(missing).as("JdbcDialect methods LazyDialect does not delegate").isEmpty();
  }
}
