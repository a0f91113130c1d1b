package dev.outbox4j.relay.cli;

import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.server.Json;
import dev.outbox4j.spi.DestinationStats;
import dev.outbox4j.spi.OperatorPause;
import dev.outbox4j.spi.OutboxStats;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code status}: the outbox's counts — waiting, blocked behind a quarantined or parked entry, in flight, quarantined —
 * the lag (oldest waiting entry) apart from the oldest blocked entry, the same per destination, and the destinations an
 * operator paused.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show how many entries wait, are blocked behind a quarantined or parked entry of their key, are in"
        + " flight and are quarantined, the age of the oldest waiting (the lag) and of the oldest blocked entry, the"
        + " same per destination (the " + StatusCommand.DESTINATIONS_SHOWN + " most behind), and the destinations an"
        + " operator paused.")
final class StatusCommand implements Callable<Integer> {
  /** The most destinations listed, the ones most behind first. */
  static final int DESTINATIONS_SHOWN = 20;

  private final CliContext context;

  @Mixin DatabaseOptions database = new DatabaseOptions();

  @Option(names = "--json", description = "print one JSON object instead of text")
  boolean json;

  @Option(names = "--relay", paramLabel = "URL",
      description = "also ask a running relay (its dashboard address, e.g. http://127.0.0.1:8080) which destinations"
          + " it paused because they were failing: the database knows operator pauses only")
  java.net.@org.jspecify.annotations.Nullable URI relay;

  StatusCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    RelayConfig config = database.read(context);
    try (OutboxAccess access = new OutboxAccess(config)) {
      Instant now = context.clock().instant();
      OutboxStats stats = access.store().stats(now);
      List<DestinationStats> destinations = access.store().destinationStats(now, DESTINATIONS_SHOWN + 1);
      boolean more = destinations.size() > DESTINATIONS_SHOWN;
      destinations = destinations.subList(0, Math.min(DESTINATIONS_SHOWN, destinations.size()));
      List<OperatorPause> pauses;
      try {
        pauses = access.store().operatorPauses();
      } catch (dev.outbox4j.OutboxException e) {
        context.err().println("could not read the destination pauses (run 'migrate'?): " + e.getMessage());
        context.err().flush();
        pauses = List.of();
      }
      List<Map<String, Object>> outages = List.of();
      String unreachable = null;
      if (relay != null) {
        try {
          outages = RelayDestinations.paused(relay);
        } catch (java.io.IOException e) {
          unreachable = "could not ask the relay at " + relay + ": " + e.getMessage();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          unreachable = "interrupted while asking the relay at " + relay;
        }
      }
      if (json) {
        printJson(stats, destinations, more, pauses, now);
      } else {
        printText(config, stats, destinations, more, pauses, now);
      }
      if (relay != null && unreachable == null && !json) {
        printRelayPauses(outages);
      }
      context.out().flush();
      if (unreachable != null) {
        context.err().println(unreachable);
        context.err().flush();
        return ExitCodes.FAILED;
      }
      return ExitCodes.OK;
    }
  }

  private void printJson(OutboxStats stats, List<DestinationStats> destinations, boolean more,
      List<OperatorPause> pauses, Instant now) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("pending", stats.pending());
    body.put("waiting", stats.waiting());
    body.put("blocked", stats.blocked());
    body.put("inFlight", stats.inFlight());
    body.put("quarantined", stats.quarantined());
    body.put("lagSeconds", seconds(stats.lag(now)));
    body.put("oldestBlockedSeconds", seconds(stats.blockedAge(now)));
    List<Object> rows = new ArrayList<>();
    for (DestinationStats destination : destinations) {
      OutboxStats d = destination.stats();
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("destination", destination.destination());
      row.put("waiting", d.waiting());
      row.put("blocked", d.blocked());
      row.put("inFlight", d.inFlight());
      row.put("quarantined", d.quarantined());
      row.put("lagSeconds", seconds(d.lag(now)));
      row.put("oldestBlockedSeconds", seconds(d.blockedAge(now)));
      rows.add(row);
    }
    body.put("destinations", rows);
    body.put("moreDestinations", more);
    List<Object> paused = new ArrayList<>();
    for (OperatorPause pause : pauses) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("destination", pause.destination());
      row.put("pausedBy", pause.pausedBy());
      row.put("pausedAt", pause.pausedAt().toString());
      row.put("reason", pause.reason());
      paused.add(row);
    }
    body.put("pausedDestinations", paused);
    if (relay != null) {
      try {
        body.put("relayPausedDestinations", RelayDestinations.paused(relay));
      } catch (java.io.IOException e) {
        body.put("relayPausedDestinations", null);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        body.put("relayPausedDestinations", null);
      }
    }
    context.out().println(Json.write(body));
  }

  private void printText(RelayConfig config, OutboxStats stats, List<DestinationStats> destinations, boolean more,
      List<OperatorPause> pauses, Instant now) {
    java.io.PrintWriter out = context.out();
    out.printf("outbox       %s (prefix %s)%n", config.database().displayUrl(), config.database().tablePrefix());
    out.printf("pending      %d (waiting %d, blocked %d)%n", stats.pending(), stats.waiting(), stats.blocked());
    out.printf("waiting      %d%n", stats.waiting());
    out.printf("blocked      %d%s%n", stats.blocked(),
        stats.blocked() == 0 ? "" : " behind a quarantined or parked entry of their key (requeue or discard it)");
    out.printf("in flight    %d%n", stats.inFlight());
    out.printf("quarantined  %d%n", stats.quarantined());
    out.printf(Locale.ROOT, "lag          %s%n", stats.oldestWaiting()
        .map(oldest -> String.format(Locale.ROOT, "%.1f s (oldest waiting entry written %s)",
            seconds(stats.lag(now)), oldest)).orElse("0 (nothing waits)"));
    out.printf(Locale.ROOT, "blocked for  %s%n", stats.oldestBlocked()
        .map(oldest -> String.format(Locale.ROOT, "%.1f s (oldest blocked entry written %s)",
            seconds(stats.blockedAge(now)), oldest)).orElse("0 (nothing blocked)"));
    if (pauses.isEmpty()) {
      out.printf("paused       none%n");
    }
    for (OperatorPause pause : pauses) {
      out.printf("paused       %s  %s (since %s)%n", pause.destination(), pause.heldBackReason(), pause.pausedAt());
    }
    if (destinations.isEmpty()) {
      return;
    }
    List<String[]> table = new ArrayList<>();
    table.add(new String[] {"destination", "waiting", "blocked", "in flight", "quarantined", "lag", "blocked for"});
    for (DestinationStats destination : destinations) {
      OutboxStats d = destination.stats();
      table.add(new String[] {destination.destination(), Long.toString(d.waiting()), Long.toString(d.blocked()),
          Long.toString(d.inFlight()), Long.toString(d.quarantined()),
          d.waiting() == 0 ? "-" : String.format(Locale.ROOT, "%.1f s", seconds(d.lag(now))),
          d.blocked() == 0 ? "-" : String.format(Locale.ROOT, "%.1f s", seconds(d.blockedAge(now)))});
    }
    int[] widths = new int[table.get(0).length];
    for (String[] row : table) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    out.println();
    for (String[] row : table) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        String cell = row[i];
        // the destination left-aligned, the numbers right-aligned
        line.append(i == 0 ? cell + " ".repeat(widths[i] - cell.length()) : " ".repeat(widths[i] - cell.length()) + cell);
        if (i < row.length - 1) {
          line.append("  ");
        }
      }
      out.println(line.toString().stripTrailing());
    }
    if (more) {
      out.printf("(the %d destinations most behind; more have undelivered entries)%n", DESTINATIONS_SHOWN);
    }
  }

  private void printRelayPauses(List<Map<String, Object>> outages) {
    java.io.PrintWriter out = context.out();
    out.println();
    if (outages.isEmpty()) {
      out.printf("relay %s: every destination flowing%n", relay);
      return;
    }
    out.printf("relay %s paused:%n", relay);
    for (Map<String, Object> paused : outages) {
      Object next = paused.get("nextProbeAt");
      out.printf("  %s  %s since %s, next probe %s, %s failed probes; last error: %s%n", paused.get("destination"),
          paused.get("state"), paused.get("pausedSince"), next == null ? "none (resume by hand)" : next,
          paused.get("failedProbes"), paused.get("lastError"));
    }
  }

  private static double seconds(Duration duration) {
    return duration.toMillis() / 1000.0;
  }
}
