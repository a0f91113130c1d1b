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
 * operator paused; with {@code --relay}, in the same list, those a running relay paused for an outage, with when their
 * entries are next sent. A relay that cannot be asked is said on standard error, with what to do, and exits 1.
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
          + " it paused because they were failing: the database knows operator pauses only; exits 1 when the relay"
          + " cannot be asked")
  java.net.@org.jspecify.annotations.Nullable URI relay;

  @Option(names = "--relay-ca", paramLabel = "FILE",
      description = "with an https --relay: a PEM file of the authority that signed the relay's certificate, or of"
          + " that certificate itself, trusted besides the JVM's own (default: the configuration's server.tls.ca)")
  java.nio.file.@org.jspecify.annotations.Nullable Path relayCa;

  StatusCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    RelayConfig all = database.readAll(context);
    if (database.outbox == null && all.named()) {
      return summary(all);
    }
    RelayConfig config = database.outbox == null ? all : all.outbox(database.outbox);
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
        java.nio.file.Path ca = relayCa != null ? relayCa : config.server().tlsCa();
        try {
          outages = RelayDestinations.paused(relay, ca);
        } catch (java.io.IOException | IllegalArgumentException e) {
          unreachable = "could not ask the relay at " + relay + ": " + e.getMessage();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          unreachable = "interrupted while asking the relay at " + relay;
        }
      }
      List<Map<String, Object>> relayPauses = unreachable == null ? outages : null;
      if (json) {
        printJson(stats, destinations, more, pauses, relayPauses);
      } else {
        printText(config, stats, destinations, more, pauses, relayPauses, now);
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
      List<OperatorPause> pauses, @org.jspecify.annotations.Nullable List<Map<String, Object>> relayPauses) {
    Instant now = context.clock().instant();
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
      body.put("relayPausedDestinations", relayPauses); // null when the relay could not be asked (exit code 1)
    }
    context.out().println(Json.write(body));
  }

  private void printText(RelayConfig config, OutboxStats stats, List<DestinationStats> destinations, boolean more,
      List<OperatorPause> pauses, @org.jspecify.annotations.Nullable List<Map<String, Object>> relayPauses,
      Instant now) {
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
    printPauses(pauses, relayPauses);
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
    out.println();
    printTable(table, false);
    if (more) {
      out.printf("(the %d destinations most behind; more have undelivered entries)%n", DESTINATIONS_SHOWN);
    }
  }

  /**
   * The paused destinations, one line each, from both sources at once so the lines never contradict each other: the
   * operator's pauses from the database (who, why, since when), and with {@code --relay} the outages that relay judged
   * (its operator pauses are the database's, read by it a moment earlier, so not listed twice).
   */
  private void printPauses(List<OperatorPause> pauses,
      @org.jspecify.annotations.Nullable List<Map<String, Object>> relayPauses) {
    java.io.PrintWriter out = context.out();
    int lines = 0;
    for (OperatorPause pause : pauses) {
      out.printf("paused       %s  %s (since %s)%n", pause.destination(), pause.heldBackReason(), pause.pausedAt());
      lines++;
    }
    if (relayPauses != null) {
      for (Map<String, Object> paused : relayPauses) {
        if ("OPERATOR".equals(paused.get("cause"))) {
          continue;
        }
        Object at = paused.get("nextSendAt");
        out.printf("paused       %s  outage, %s since %s; next send: %s; %s failed probes; last error: %s%n",
            paused.get("destination"), paused.get("state"), paused.get("pausedSince"),
            at == null ? paused.get("nextSend") : at + " (" + paused.get("nextSend") + ")",
            paused.get("failedProbes"), paused.get("lastError"));
        lines++;
      }
    }
    if (lines == 0) {
      out.printf("paused       %s%n", relay == null ? "none by an operator (outage pauses: --relay URL)"
          : relayPauses == null ? "none by an operator (the relay could not be asked)"
          : "none (every destination of the relay at " + relay + " flowing)");
    }
  }

  /**
   * Prints rows in columns: the first left-aligned, the numbers right-aligned, and with {@code lastLeft} the last
   * left-aligned too; a row shorter than the first (a note) is its first cell and the rest joined.
   */
  private void printTable(List<String[]> table, boolean lastLeft) {
    int columns = table.get(0).length;
    int[] widths = new int[columns];
    for (String[] row : table) {
      for (int i = 0; i < row.length && row.length == columns; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : table) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        String cell = row[i];
        boolean left = i == 0 || row.length < columns || lastLeft && i == columns - 1;
        line.append(left ? cell + " ".repeat(Math.max(0, widths[i] - cell.length()))
            : " ".repeat(widths[i] - cell.length()) + cell);
        if (i < row.length - 1) {
          line.append("  ");
        }
      }
      context.out().println(line.toString().stripTrailing());
    }
  }

  private static double seconds(Duration duration) {
    return duration.toMillis() / 1000.0;
  }

  /**
   * {@code status} of a configuration with several outboxes and no {@code --outbox}: one row per outbox (each tenant
   * of a tenants entry), each read on its own, so one database that cannot be reached is one row saying so. Exits 1
   * when an outbox could not be read.
   */
  private int summary(RelayConfig all) {
    Instant now = context.clock().instant();
    List<Map<String, Object>> rows = new ArrayList<>();
    for (RelayConfig.Outbox outbox : all.outboxes().values()) {
      if (outbox.tenants() == null) {
        rows.add(summaryRow(all.of(outbox), now));
        continue;
      }
      try (OutboxAccess access = new OutboxAccess(all.of(outbox))) {
        for (String schema : dev.outbox4j.relay.runtime.TenantSchemas.find(outbox, access.dataSource())) {
          rows.add(summaryRow(all.of(outbox.tenant(schema)), now));
        }
      } catch (RuntimeException e) {
        rows.add(unreadable(outbox.name(), e));
      }
    }
    boolean failed = rows.stream().anyMatch(row -> row.get("error") != null);
    if (json) {
      context.out().println(Json.write(Map.of("outboxes", rows)));
    } else {
      List<String[]> table = new ArrayList<>();
      table.add(new String[] {"outbox", "waiting", "blocked", "in flight", "quarantined", "lag", "blocked for",
          "paused"});
      for (Map<String, Object> row : rows) {
        if (row.get("error") != null) {
          table.add(new String[] {(String) row.get("outbox"), "unreadable: " + row.get("error")});
          continue;
        }
        double lag = (Double) row.get("lagSeconds");
        double blockedFor = (Double) row.get("oldestBlockedSeconds");
        @SuppressWarnings("unchecked")
        List<String> paused = (List<String>) row.get("pausedDestinations");
        table.add(new String[] {(String) row.get("outbox"), row.get("waiting").toString(),
            row.get("blocked").toString(), row.get("inFlight").toString(), row.get("quarantined").toString(),
            (Long) row.get("waiting") == 0 ? "-" : String.format(Locale.ROOT, "%.1f s", lag),
            (Long) row.get("blocked") == 0 ? "-" : String.format(Locale.ROOT, "%.1f s", blockedFor),
            paused.isEmpty() ? "-" : String.join(",", paused)});
      }
      printTable(table, true);
    }
    context.out().flush();
    return failed ? ExitCodes.FAILED : ExitCodes.OK;
  }

  private static Map<String, Object> summaryRow(RelayConfig outbox, Instant now) {
    String name = outbox.firstOutboxName();
    try (OutboxAccess access = new OutboxAccess(outbox)) {
      OutboxStats stats = access.store().stats(now);
      List<String> paused;
      try {
        paused = access.store().operatorPauses().stream().map(OperatorPause::destination).toList();
      } catch (dev.outbox4j.OutboxException e) {
        paused = List.of();
      }
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("outbox", name);
      row.put("waiting", stats.waiting());
      row.put("blocked", stats.blocked());
      row.put("inFlight", stats.inFlight());
      row.put("quarantined", stats.quarantined());
      row.put("lagSeconds", seconds(stats.lag(now)));
      row.put("oldestBlockedSeconds", seconds(stats.blockedAge(now)));
      row.put("pausedDestinations", paused);
      row.put("error", null);
      return row;
    } catch (RuntimeException e) {
      return unreadable(name, e);
    }
  }

  private static Map<String, Object> unreadable(String name, RuntimeException e) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("outbox", name);
    row.put("error", dev.outbox4j.relay.config.RelayAssembly.rootMessage(e));
    return row;
  }
}
