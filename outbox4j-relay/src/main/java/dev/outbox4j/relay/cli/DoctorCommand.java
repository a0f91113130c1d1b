package dev.outbox4j.relay.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.OutboxException;
import dev.outbox4j.jdbc.doctor.DoctorReport;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.doctor.DoctorOutput;
import dev.outbox4j.relay.doctor.RelayDoctor;
import dev.outbox4j.relay.server.Json;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code doctor}: what in the deployment makes the outbox unsafe or slow, each finding with the setting that fixes it.
 * It connects as {@code run} would (the same URL, user and driver properties, a pool of two) and only reads. Its exit
 * codes differ from the other commands': {@value #NOTHING_UNSAFE} when nothing is UNSAFE, {@value #UNSAFE} when
 * something is, {@value #CANNOT_CONNECT} when the database cannot be reached.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true,
    description = "Check the database and the configuration for settings that make the outbox unsafe or slow: default"
        + " isolation and commit durability, a pooler in front, the outbox sequence's cache, the idle-transaction"
        + " timeout against the lease, clock skew, the schema version, TLS that verifies nothing. Only reads.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:nothing UNSAFE (SLOW and INFO findings may be listed)", "1:something is UNSAFE",
        "2:the database cannot be reached", "3:wrong configuration"})
final class DoctorCommand implements Callable<Integer> {
  /** Nothing found is UNSAFE. */
  static final int NOTHING_UNSAFE = 0;
  /** A finding is UNSAFE. */
  static final int UNSAFE = 1;
  /** The database cannot be reached. */
  static final int CANNOT_CONNECT = 2;

  private final CliContext context;

  @Mixin DatabaseOptions database = new DatabaseOptions();

  @Option(names = "--json", description = "print one JSON object instead of the table")
  boolean json;

  DoctorCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    RelayConfig config = database.read(context);
    RelayConfig.Database settings = config.database().withPoolSize(2);
    DoctorReport report;
    try {
      OutboxAccess.refuseMissingH2File(settings);
      try (HikariDataSource pool = RelayAssembly.dataSource(settings, "outbox4j-doctor")) {
        report = RelayDoctor.examine(config, pool, context.clock());
      }
    } catch (OutboxException e) {
      context.err().println(e.getMessage());
      context.err().flush();
      return CANNOT_CONNECT;
    }
    Duration lease = RelayDoctor.lease(config);
    String shown = settings.displayUrl();
    context.out().print(json ? Json.write(DoctorOutput.json(report, shown, lease)) + "\n"
        : DoctorOutput.table(report, shown, lease));
    context.out().flush();
    return report.unsafe() ? UNSAFE : NOTHING_UNSAFE;
  }
}
