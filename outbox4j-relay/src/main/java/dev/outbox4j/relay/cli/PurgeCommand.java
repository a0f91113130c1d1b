package dev.outbox4j.relay.cli;

import dev.outbox4j.DurationFormat;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code purge}: deletes delivered entries past their retention, in bounded batches. */
@Command(name = "purge", mixinStandardHelpOptions = true,
    description = "Delete delivered entries older than database.keep-delivered, in batches. Does nothing when "
        + "delivered entries are deleted on delivery (the default).")
final class PurgeCommand implements Callable<Integer> {
  private final CliContext context;

  @Mixin DatabaseOptions database = new DatabaseOptions();

  @Option(names = "--batch", paramLabel = "N", defaultValue = "1000",
      description = "entries deleted per statement (default 1000)")
  int batch;

  PurgeCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    if (batch < 1 || batch > 100_000) {
      context.err().println("--batch must be 1..100000, was " + batch);
      context.err().flush();
      return ExitCodes.USAGE;
    }
    try (OutboxAccess access = new OutboxAccess(database.read(context))) {
      if (access.store().retention().deletesOnDelivery()) {
        context.out().println("delivered entries are deleted on delivery (database.keep-delivered is not set): "
            + "nothing to purge");
      } else {
        long total = 0;
        int deleted;
        do {
          deleted = access.store().purgeDelivered(context.clock().instant(), batch);
          total += deleted;
        } while (deleted == batch);
        context.out().println("purged " + total + " delivered entr" + (total == 1 ? "y" : "ies") + " older than "
            + DurationFormat.format(access.store().retention().keepPeriod().orElseThrow()));
        if (total > 0) {
          AuditLog.record(context, access.store(), dev.outbox4j.spi.OperatorAction.PURGE, "delivered entries older"
              + " than " + DurationFormat.format(access.store().retention().keepPeriod().orElseThrow()), total, "");
        }
      }
      context.out().flush();
      return ExitCodes.OK;
    }
  }
}
