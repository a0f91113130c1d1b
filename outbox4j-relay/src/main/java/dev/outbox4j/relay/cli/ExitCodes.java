package dev.outbox4j.relay.cli;

/** The process exit codes of every command (documented in docs/relay-app.md and in {@code --help}). */
public final class ExitCodes {
  /** Done. */
  public static final int OK = 0;
  /** Failed at run time: the database or a broker could not be reached, a statement failed. */
  public static final int FAILED = 1;
  /** The command line is wrong: unknown command or option, malformed argument. */
  public static final int USAGE = 2;
  /** The configuration is wrong: unknown key, wrong type, missing value. Nothing was changed. */
  public static final int CONFIG = 3;
  /**
   * Nothing matched: some entries named on the command line are not quarantined (the others were handled), no waiting
   * entry matched a {@code park} or {@code discard --waiting}, or {@code resume} named a destination not paused.
   */
  public static final int NOT_FOUND = 4;

  private ExitCodes() {}
}
