package dev.outbox4j.relay.cli;

import dev.outbox4j.OutboxException;
import dev.outbox4j.relay.config.ConfigException;
import dev.outbox4j.relay.config.RelayAssembly;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The command tree and how failures become exit codes and messages: a configuration error prints its message (key,
 * problem, origin) and exits {@value ExitCodes#CONFIG}; a run-time failure prints the cause and exits
 * {@value ExitCodes#FAILED}; a usage error exits {@value ExitCodes#USAGE}. Stack traces are not printed: the
 * messages are meant for operators, and a stack trace may carry a URL or a value.
 *
 * <p>Stateless and thread-safe; every call builds a fresh command tree.
 */
@Command(name = "outbox4j-relay", mixinStandardHelpOptions = true, version = "outbox4j-relay",
    description = "The outbox4j relay: deliver outbox rows written by any application, and operate the outbox.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:done",
        "1:failed at run time (database or broker unreachable, statement failed)",
        "2:wrong command line (unknown command or option, malformed argument)",
        "3:wrong configuration (unknown key, wrong type, missing value); nothing was changed",
        "4:nothing matched: some entries named are not quarantined (the others were handled), no waiting entry"
            + " matched, or the destination is not paused"},
    commandListHeading = "%nCommands:%n",
    footer = {"", "Every command takes --help. Configuration reference: docs/relay-app.md."})
public final class Commands implements Runnable {
  private final CommandLine.Model.CommandSpec[] spec = new CommandLine.Model.CommandSpec[1];

  private Commands() {}

  /**
   * @param args the command line
   * @param context output, environment and clock
   * @return the exit code
   */
  public static int execute(String[] args, CliContext context) {
    Commands root = new Commands();
    CommandLine line = new CommandLine(root);
    root.spec[0] = line.getCommandSpec();
    line.addSubcommand(new DemoCommand(context));
    line.addSubcommand(new RunCommand(context));
    line.addSubcommand(new MigrateCommand(context));
    line.addSubcommand(new StatusCommand(context));
    line.addSubcommand(new QuarantinedCommand(context));
    line.addSubcommand(new EntryActionCommand.Requeue(context));
    line.addSubcommand(new EntryActionCommand.Discard(context));
    line.addSubcommand(new ParkCommand(context));
    line.addSubcommand(new PauseCommand.Pause(context));
    line.addSubcommand(new PauseCommand.Resume(context));
    line.addSubcommand(new PurgeCommand(context));
    line.addSubcommand(new AuditCommand(context));
    line.setOut(context.out());
    line.setErr(context.err());
    line.setExitCodeExceptionMapper(error -> error instanceof CommandLine.ParameterException ? ExitCodes.USAGE
        : error instanceof ConfigException ? ExitCodes.CONFIG : ExitCodes.FAILED);
    line.setExecutionExceptionHandler((error, command, parsed) -> {
      if (error instanceof ConfigException) {
        context.err().println("configuration error: " + error.getMessage());
        context.err().println("nothing was changed");
      } else if (error instanceof OutboxException) {
        String cause = RelayAssembly.rootMessage(error);
        context.err().println("error: " + error.getMessage()
            + (error.getMessage() != null && error.getMessage().contains(cause) ? "" : " (" + cause + ")"));
      } else {
        context.err().println("error: " + RelayAssembly.rootMessage(error));
      }
      context.err().flush();
      return error instanceof ConfigException ? ExitCodes.CONFIG : ExitCodes.FAILED;
    });
    int code = line.execute(args);
    context.out().flush();
    context.err().flush();
    return code;
  }

  /** Without a command: a usage error, with the usage. */
  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec[0].commandLine(), "a command is required");
  }
}
