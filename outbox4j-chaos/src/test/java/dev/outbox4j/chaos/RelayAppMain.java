package dev.outbox4j.chaos;

/**
 * A process of the runnable relay ({@code outbox4j-relay}), exactly as {@code java -jar outbox4j-relay.jar} runs it
 * ({@code run --config relay.yaml}), that also exits when the suite's JVM is gone ({@link ChildWatchdog}): the
 * two-outboxes scenario's relays, each draining every outbox of its configuration's {@code outboxes:}.
 */
public final class RelayAppMain {
  private RelayAppMain() {}

  /** @param arguments the relay app's command line */
  public static void main(String[] arguments) {
    ChildWatchdog.haltWhenParentExits();
    dev.outbox4j.relay.Main.main(arguments);
  }
}
