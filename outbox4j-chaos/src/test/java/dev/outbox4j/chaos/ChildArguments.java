package dev.outbox4j.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The {@code name=value} program arguments of a child main class. Immutable. */
final class ChildArguments {
  private final Map<String, String> values;

  private ChildArguments(Map<String, String> values) {
    this.values = Map.copyOf(values);
  }

  static ChildArguments parse(String[] arguments) {
    Map<String, String> values = new HashMap<>();
    for (String argument : arguments) {
      int equals = argument.indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException("expected name=value, got " + argument);
      }
      values.put(argument.substring(0, equals), argument.substring(equals + 1));
    }
    return new ChildArguments(values);
  }

  /** @return the arguments as a child's command line: durations in milliseconds, enum constants as kebab-case */
  static List<String> of(Map<String, ?> values) {
    List<String> arguments = new ArrayList<>();
    values.forEach((name, value) -> arguments.add(name + "=" + text(value)));
    return arguments;
  }

  private static Object text(Object value) {
    if (value instanceof Duration duration) {
      return duration.toMillis();
    }
    if (value instanceof Enum<?> constant) {
      return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
    return value;
  }

  /** @return whether the argument was given */
  boolean has(String name) {
    return values.containsKey(name);
  }

  String text(String name) {
    String value = values.get(name);
    if (value == null) {
      throw new IllegalArgumentException("missing argument " + name);
    }
    return value;
  }

  /** @return the value, or {@code null} when the argument was not given */
  String optional(String name) {
    return values.get(name);
  }

  int integer(String name) {
    return Integer.parseInt(text(name));
  }

  double decimal(String name) {
    return Double.parseDouble(text(name));
  }

  /**
   * @param fallback the constant when the argument was not given
   * @return the constant given in kebab-case ({@code leased-rows} for {@code LEASED_ROWS})
   */
  <E extends Enum<E>> E constant(String name, E fallback) {
    String value = values.get(name);
    return value == null ? fallback
        : Enum.valueOf(fallback.getDeclaringClass(), value.toUpperCase(Locale.ROOT).replace('-', '_'));
  }

  /** @return a duration given in milliseconds */
  Duration duration(String name) {
    return Duration.ofMillis(Long.parseLong(text(name)));
  }
}
