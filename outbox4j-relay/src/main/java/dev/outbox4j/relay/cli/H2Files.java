package dev.outbox4j.relay.cli;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * Where an H2 URL keeps its database on disk. H2 creates a missing database file silently on the first connection, so
 * a mistyped path would give an operator an empty outbox and a confusing "table not found"; the commands check the file
 * first and refuse a missing one (except {@code migrate}, which is how one is created).
 *
 * <p>Understood: {@code jdbc:h2:file:PATH} and {@code jdbc:h2:PATH} (absolute, {@code ./} or {@code ../} relative to the
 * working directory, {@code ~} for the user's home), with or without {@code ;SETTINGS}; the database is
 * {@code PATH.mv.db} (or {@code PATH.h2.db}, written by H2 1.x). Every other URL (in-memory, {@code tcp:}, {@code ssl:},
 * another file system, another database) is not checked.
 *
 * <p>Stateless and thread-safe.
 */
final class H2Files {
  private static final String PREFIX = "jdbc:h2:";

  private H2Files() {}

  /**
   * @param url a JDBC URL
   * @return the file an H2 file URL names, when it does not exist; empty for an existing file and for any other URL
   */
  static Optional<Path> missing(String url) {
    return databaseFile(url).filter(file -> !Files.exists(file)
        && !Files.exists(file.resolveSibling(file.getFileName().toString().replaceFirst("\\.mv\\.db$", ".h2.db"))));
  }

  /** @return the {@code .mv.db} file an H2 file URL names; empty for any other URL */
  static Optional<Path> databaseFile(String url) {
    if (!url.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      return Optional.empty();
    }
    String path = url.substring(PREFIX.length());
    int settings = path.indexOf(';');
    if (settings >= 0) {
      path = path.substring(0, settings);
    }
    if (path.toLowerCase(Locale.ROOT).startsWith("file:")) {
      path = path.substring("file:".length());
    } else if (path.matches("[A-Za-z][A-Za-z0-9]+:.*")) {
      return Optional.empty(); // mem:, tcp:, ssl:, zip:, nio:, ...: not a plain file (a drive letter has one letter)
    }
    if (path.isEmpty()) {
      return Optional.empty();
    }
    if (path.equals("~") || path.startsWith("~/") || path.startsWith("~\\")) {
      path = System.getProperty("user.home") + path.substring(1);
    }
    try {
      return Optional.of(Path.of(path + ".mv.db").toAbsolutePath().normalize());
    } catch (InvalidPathException e) {
      return Optional.empty(); // H2 will say what is wrong with it
    }
  }
}
