package dev.outbox4j.relay.cli;

import dev.outbox4j.relay.config.ConfigException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The command tree and how failures become exit codes and messages: a configuration error prints its message (key,
 * problem, origin) and exits {@value ExitCodes#CONFIG}; a run-time failure prints the cause and exits
 * {@value ExitCodes#FAILED}; a usage error prints one line naming the option and exits {@value ExitCodes#USAGE}.
 * Run-time failures print one line ({@link ErrorReport}); stack traces only with {@code --verbose}: the messages are
 * meant for operators, and a stack trace may carry a SQL statement or a value.
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
            + " matched, or the destination is not paused",
        "doctor:0 nothing UNSAFE, 1 something UNSAFE, 2 the database cannot be reached"},
    commandListHeading = "%nCommands:%n",
    footer = {"", "Every command takes --help. Configuration reference: docs/relay-app.md."})
public final class Commands implements Runnable {
  private final CommandLine.Model.CommandSpec[] spec = new CommandLine.Model.CommandSpec[1];

  @Option(names = "--verbose", scope = ScopeType.INHERIT,
      description = "on failure, print the whole error: every cause with its stack trace (may show SQL statements)")
  boolean verbose;

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
    line.addSubcommand(new DoctorCommand(context));
    line.setOut(context.out());
    line.setErr(context.err());
    line.setCaseInsensitiveEnumValuesAllowed(true);
    line.setExitCodeExceptionMapper(error -> error instanceof CommandLine.ParameterException ? ExitCodes.USAGE
        : error instanceof ConfigException ? ExitCodes.CONFIG : ExitCodes.FAILED);
    line.setParameterExceptionHandler((error, arguments) -> usageError(context, error));
    line.setExecutionExceptionHandler((error, command, parsed) -> {
      context.out().flush();
      if (error instanceof ConfigException) {
        context.err().println("configuration error: " + error.getMessage());
        context.err().println("nothing was changed");
      } else {
        ErrorReport.print(context.err(), error, root.verbose);
      }
      context.err().flush();
      return error instanceof ConfigException ? ExitCodes.CONFIG : ExitCodes.FAILED;
    });
    int code = line.execute(args);
    context.out().flush();
    context.err().flush();
    return code;
  }

  /**
   * A wrong command line: the problem in one line (picocli's message names the option, and for an enum lists the values
   * it takes), with suggestions for a mistyped option, and where the options are listed. The whole usage only when no
   * command was given.
   */
  private static int usageError(CliContext context, CommandLine.ParameterException error) {
    CommandLine command = error.getCommandLine();
    PrintWriter err = context.err();
    context.out().flush();
    err.println("error: " + error.getMessage());
    if (error instanceof CommandLine.UnmatchedArgumentException unmatched) {
      CommandLine.UnmatchedArgumentException.printSuggestions(unmatched, err);
    }
    if (command.getParent() == null) {
      command.usage(err);
    } else {
      err.println("see '" + command.getCommandSpec().qualifiedName() + " --help' for its options");
    }
    err.flush();
    return ExitCodes.USAGE;
  }

  /** Without a command: a usage error, with the usage. */
  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec[0].commandLine(), "a command is required");
  }
}
