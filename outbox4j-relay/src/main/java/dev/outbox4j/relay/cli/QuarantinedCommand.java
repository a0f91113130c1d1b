package dev.outbox4j.relay.cli;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.spi.QuarantineQuery;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code quarantined}: one page of the quarantined entries. */
@Command(name = "quarantined", mixinStandardHelpOptions = true,
    description = "List quarantined entries in sequence order: id, sequence, key, destination, attempts, kind, reason "
        + "and last error (never payloads); under an UNREADABLE entry, the raw text of the columns that can make a row "
        + "unreadable. Ends with how many are shown of how many wait for an operator (quarantined or parked).")
final class QuarantinedCommand implements Callable<Integer> {
  private final CliContext context;

  @Mixin DatabaseOptions database = new DatabaseOptions();

  @Option(names = "--limit", paramLabel = "N", defaultValue = "50", description = "page size, 1 to 1000 (default 50)")
  int limit;

  @Option(names = "--after", paramLabel = "SEQ", description = "list entries after this sequence (the next page)")
  @Nullable Long after;

  QuarantinedCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    if (limit < 1 || limit > QuarantineQuery.MAX_LIMIT) {
      context.err().println("--limit must be 1.." + QuarantineQuery.MAX_LIMIT + ", was " + limit);
      context.err().flush();
      return ExitCodes.USAGE;
    }
    try (OutboxAccess access = new OutboxAccess(database.read(context))) {
      List<OutboxEntry> entries = access.store().quarantined(new QuarantineQuery(limit, after));
      context.out().printf("%-36s  %8s  %-20s  %-20s  %8s  %-17s  %s%n", "ID", "SEQ", "KEY", "DESTINATION",
          "ATTEMPTS", "KIND", "REASON / LAST ERROR");
      for (OutboxEntry entry : entries) {
        context.out().printf("%-36s  %8d  %-20s  %-20s  %8d  %-17s  %s%n", entry.id(), entry.sequence(),
            entry.message().orderingKey().orElse("-"), entry.message().destination(), entry.attempts(),
            dev.outbox4j.spi.QuarantineGroups.Member.of(entry).kindLabel(),
            oneLine(entry.quarantineReason()) + (java.util.Objects.equals(entry.quarantineReason(), entry.lastError())
                || entry.lastError() == null ? "" : " / " + oneLine(entry.lastError())));
        if (entry.quarantineKind() == QuarantineKind.UNREADABLE) {
          access.store().rawColumns(entry.id()).ifPresent(raw -> context.out().printf("%-36s  raw: %s%n", "",
              String.join(", ", RAW_SHOWN.stream().map(column -> column + "=" + quoted(raw.get(column))).toList())));
        }
      }
      long total = access.store().stats(context.clock().instant()).quarantined();
      context.out().printf("showing %d of %d quarantined entr%s%s%s%n", entries.size(), total,
          total == 1 ? "y" : "ies", after == null ? "" : " (after sequence " + after + ")",
          entries.size() == limit ? "; next page: --after " + entries.get(entries.size() - 1).sequence() : "");
      context.out().flush();
      return ExitCodes.OK;
    }
  }

  /** The columns another application can write so that the store cannot read the row; never the payload. */
  private static final List<String> RAW_SHOWN = List.of("destination", "ordering_key", "content_type", "headers");

  private static String quoted(@Nullable String text) {
    return text == null ? "NULL" : "'" + oneLine(text) + "'";
  }

  private static String oneLine(@Nullable String text) {
    return text == null ? "-" : text.replaceAll("\\s+", " ");
  }
}
