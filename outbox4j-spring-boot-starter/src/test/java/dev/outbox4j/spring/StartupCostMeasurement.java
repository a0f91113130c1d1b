package dev.outbox4j.spring;

import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.spi.Transport;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Not a test: measures the start-up time the starter adds. Starts a minimal Boot application (embedded H2 DataSource,
 * Jackson, Actuator health, an in-process transport bean) once, in this fresh JVM, with or without outbox4j's
 * auto-configurations, and prints the milliseconds from {@code SpringApplication.run} to a refreshed context (relay
 * started, schema migrated). Run it in many fresh JVMs and compare medians (see docs/spring-boot.md).
 *
 * <p>Argument: {@code with} or {@code without}.
 */
public final class StartupCostMeasurement {
  private static final String OUTBOX4J = String.join(",",
      "dev.outbox4j.spring.autoconfigure.Outbox4jTransportAutoConfiguration",
      "dev.outbox4j.spring.autoconfigure.Outbox4jTracingAutoConfiguration",
      "dev.outbox4j.spring.autoconfigure.Outbox4jJacksonAutoConfiguration",
      "dev.outbox4j.spring.autoconfigure.Outbox4jAutoConfiguration",
      "dev.outbox4j.spring.autoconfigure.Outbox4jMetricsAutoConfiguration",
      "dev.outbox4j.spring.autoconfigure.Outbox4jActuatorAutoConfiguration",
      "dev.outbox4j.spring.autoconfigure.Outbox4jOutboxesAutoConfiguration");

  private StartupCostMeasurement() {}

  /** A minimal application: auto-configuration plus a transport bean. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
    @Bean
    Transport transport() {
      return InProcessTransport.consuming(message -> { });
    }
  }

  /**
   * @param args {@code with} or {@code without}; then, optionally, {@code warm N}: N alternating starts of both in
   *     this JVM after one of each, printing medians
   */
  public static void main(String[] args) {
    if (args.length > 1 && args[0].equals("warm")) {
      int rounds = Integer.parseInt(args[1]);
      start(true);
      start(false);
      List<long[]> with = new ArrayList<>();
      List<long[]> without = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        without.add(start(false));
        with.add(start(true));
      }
      System.out.println("warm median without: " + median(without, 0) + " ms wall, " + median(without, 1)
          + " ms main-thread CPU; with: " + median(with, 0) + " ms wall, " + median(with, 1) + " ms main-thread CPU");
      return;
    }
    boolean with = args.length > 0 && args[0].equals("with");
    long[] cost = start(with);
    System.out.println((with ? "with" : "without") + " " + cost[0] + " ms wall " + cost[1] + " ms main-thread CPU "
        + cost[2] + " beans");
  }

  private static long median(List<long[]> runs, int index) {
    long[] values = runs.stream().mapToLong(run -> run[index]).sorted().toArray();
    return values[values.length / 2];
  }

  private static long[] start(boolean with) {
    List<String> properties = new ArrayList<>(List.of(
        "--spring.datasource.url=jdbc:h2:mem:startup-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "--spring.main.banner-mode=off",
        "--logging.level.root=warn"));
    if (!with) {
      properties.add("--spring.autoconfigure.exclude=" + OUTBOX4J);
    }
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long cpu = threads.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    ConfigurableApplicationContext context = SpringApplication.run(App.class, properties.toArray(String[]::new));
    long millis = (System.nanoTime() - start) / 1_000_000;
    long cpuMillis = (threads.getCurrentThreadCpuTime() - cpu) / 1_000_000;
    int beans = context.getBeanDefinitionCount();
    context.close();
    return new long[] {millis, cpuMillis, beans};
  }
}
