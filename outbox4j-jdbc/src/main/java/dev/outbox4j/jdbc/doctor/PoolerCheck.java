package dev.outbox4j.jdbc.doctor;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a pooler or proxy stands between the relay and the database, and in which mode.
 *
 * <h2>How it decides</h2>
 * A pooler cannot be asked through an ordinary connection ({@code SHOW POOLS} answers only on PgBouncer's admin
 * database), so the check watches what the server says about the session running each statement:
 * <ol>
 *   <li>Two connections, A and B, are held at once and each asks for its server session's id (PostgreSQL's backend
 *       pid, MariaDB's connection id) twice, in separate transactions, alternately (A, B, A, B). A direct connection,
 *       or a pooler in session mode, keeps one server session per client connection: A's ids are one, B's another. A
 *       transaction (or statement) pooler hands server sessions out per transaction: a connection's id changes
 *       between its transactions, or A and B run on the same server session (PgBouncer hands out the server
 *       connection released last, so B's first statement runs where A's just did), which this check then reports as
 *       a transaction pooler. A pooler that happened to keep giving each client the same server session for these
 *       four statements goes unseen; the port check below may still see it. No transaction is held open meanwhile,
 *       so a pooler with a single server connection answers every statement at once.
 *   <li>The port the URL names is compared with the port the server says it listens on: when they differ, something
 *       forwards the connection (a pooler in session mode, a proxy, a port mapping).
 * </ol>
 * Through a transaction pooler, the dialect says what the driver's settings break ({@link
 * DialectChecks#throughTransactionPooler}).
 */
final class PoolerCheck {
  private static final Pattern URL_AUTHORITY = Pattern.compile("//([^/?;,]+)");

  private PoolerCheck() {}

  static List<Finding> run(Examination exam, DialectChecks dialect) throws SQLException {
    boolean transactionPooling;
    String urlText;
    OptionalInt serverPort;
    Optional<Finding> driver;
    try (Connection a = exam.dataSource().getConnection(); Connection b = exam.dataSource().getConnection()) {
      a.setAutoCommit(true);
      b.setAutoCommit(true);
      List<String> aIds = new ArrayList<>();
      List<String> bIds = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        aIds.add(sessionId(a, dialect));
        bIds.add(sessionId(b, dialect));
      }
      transactionPooling = aIds.stream().distinct().count() > 1 || bIds.stream().distinct().count() > 1
          || aIds.stream().anyMatch(bIds::contains);
      urlText = a.getMetaData().getURL();
      serverPort = dialect.serverPort(a);
      driver = transactionPooling ? dialect.throughTransactionPooler(a, exam) : Optional.empty();
    }
    int urlPort = urlPort(urlText, dialect.defaultPort());
    String ports = serverPort.isPresent() && serverPort.getAsInt() != urlPort ? " (the relay connects to port "
        + urlPort + ", the server listens on " + serverPort.getAsInt() + ")" : "";
    List<Finding> findings = new ArrayList<>();
    if (transactionPooling) {
      findings.add(Finding.info("pooler", "a transaction pooler is in front" + ports + ": server sessions change"
          + " between transactions; the claims keep nothing in a session, and LISTEN/NOTIFY wake-ups do not pass"
          + " through it (the relay then polls)", "nothing for the store; for relay.listen-notify, a direct"
          + " connection (the relay's listen pool uses the same URL)"));
      driver.ifPresent(findings::add);
    } else if (!ports.isEmpty()) {
      findings.add(Finding.info("pooler", "a proxy or a pooler in session mode is in front" + ports
          + "; each client connection keeps its server session, as without one", ""));
    } else {
      findings.add(Finding.ok("pooler", "no pooler seen: each connection keeps its own server session"));
    }
    return findings;
  }

  private static String sessionId(Connection connection, DialectChecks dialect) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(dialect.sessionIdQuery())) {
      row.next();
      return row.getString(1);
    }
  }

  /** @return the port of the URL's first host, or the default when it names none */
  static int urlPort(String url, int defaultPort) {
    Matcher matcher = URL_AUTHORITY.matcher(url);
    if (!matcher.find()) {
      return defaultPort;
    }
    String authority = matcher.group(1);
    authority = authority.substring(authority.lastIndexOf('@') + 1);
    int colon = authority.lastIndexOf(':');
    int bracket = authority.lastIndexOf(']');
    if (colon < 0 || colon < bracket) {
      return defaultPort;
    }
    try {
      return Integer.parseInt(authority.substring(colon + 1));
    } catch (NumberFormatException e) {
      return defaultPort;
    }
  }
}
