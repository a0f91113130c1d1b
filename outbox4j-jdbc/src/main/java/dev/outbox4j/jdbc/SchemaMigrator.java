package dev.outbox4j.jdbc;

import dev.outbox4j.OutboxException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Applies outbox4j's versioned SQL migration files, idempotently: each file runs once per component and table names,
 * recorded in the table {@code <prefix>schema_version}.
 *
 * <p>Why our own small runner rather than Flyway: the library must not force a migration tool on its users. The files
 * themselves are plain Flyway-style scripts ({@code V1__outbox.sql}) written with the default names
 * ({@value TableNames#DEFAULT_PREFIX} prefix, no schema), so a team that already runs Flyway or Liquibase copies them
 * into its own migrations and never calls this class. When a different prefix or a schema is configured, every name
 * token {@code outbox4j_<name>} in a file is rewritten: to {@link TableNames#qualified} for schema-level objects
 * (tables, sequences, functions, MySQL/H2 triggers), and to {@link TableNames#unqualified} for per-table objects, whose
 * names start with {@code ix_}, {@code pk_}, {@code uq_}, {@code ck_} or {@code tg_} (indexes, constraints, PostgreSQL
 * triggers). Both parts are validated identifiers, so the rewrite cannot inject SQL.
 *
 * <p>Statements are split at semicolons outside quotes, dollar quotes and {@code BEGIN ... END} blocks. Each file runs
 * in one transaction with its version row, which is inserted first: on PostgreSQL and H2 (transactional DDL) a second
 * process migrating at the same moment waits on that row and then finds the version applied. MariaDB/MySQL commit DDL
 * implicitly, so run migrations from one process at a time there.
 *
 * <p>Immutable and thread-safe.
 */
public final class SchemaMigrator {
  private static final Pattern NAME_TOKEN = Pattern.compile("\\b" + TableNames.DEFAULT_PREFIX + "(\\w+)");
  private static final Pattern PER_TABLE = Pattern.compile("(ix|pk|uq|ck|tg)_.*");
  private static final Pattern VERSION = Pattern.compile("V(\\d+)__.+\\.sql");

  private final DataSource dataSource;
  private final JdbcDialect dialect;
  private final TableNames names;

  /**
   * @param dataSource where to migrate
   * @param dialect the database's dialect
   * @param names the validated schema and prefix
   */
  public SchemaMigrator(DataSource dataSource, JdbcDialect dialect, TableNames names) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.names = Objects.requireNonNull(names, "names");
  }

  /**
   * Applies the scripts of a component that are not yet recorded, in list order.
   *
   * @param component the component, which is also the resource folder's middle part ({@code db/<component>/<dialect>})
   * @param scripts the file names, for example {@code V1__outbox.sql}, in version order
   * @return how many scripts were applied now (0 when the schema was up to date)
   * @throws OutboxException naming the script when a file is missing or a statement fails
   */
  public int migrate(String component, List<String> scripts) {
    String versionTable = names.qualified("schema_version");
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      try (Statement statement = connection.createStatement()) {
        statement.execute("CREATE TABLE IF NOT EXISTS " + versionTable + " (component VARCHAR(64) NOT NULL,"
            + " version INTEGER NOT NULL, script VARCHAR(255) NOT NULL, PRIMARY KEY (component, version))");
      }
      Set<Integer> applied = new HashSet<>();
      try (PreparedStatement select = connection.prepareStatement(
          "SELECT version FROM " + versionTable + " WHERE component = ?")) {
        select.setString(1, component);
        try (ResultSet rows = select.executeQuery()) {
          while (rows.next()) {
            applied.add(rows.getInt(1));
          }
        }
      }
      int count = 0;
      for (String script : scripts) {
        int version = versionOf(script);
        if (!applied.contains(version) && apply(connection, versionTable, component, version, script)) {
          count++;
        }
      }
      return count;
    } catch (SQLException e) {
      throw new OutboxException("schema migration of " + component + " failed: " + e.getMessage(), e);
    }
  }

  private boolean apply(Connection connection, String versionTable, String component, int version, String script)
      throws SQLException {
    String path = dialect.migrationFolder(component) + "/" + script;
    List<String> statements = statements(rewrite(read(path)));
    connection.setAutoCommit(false);
    try {
      try (PreparedStatement record = connection.prepareStatement(
          "INSERT INTO " + versionTable + " (component, version, script) VALUES (?, ?, ?)")) {
        record.setString(1, component);
        record.setInt(2, version);
        record.setString(3, script);
        record.executeUpdate();
      } catch (SQLException e) {
        connection.rollback();
        if (dialect.isUniqueViolation(e)) {
          return false; // another process applied it meanwhile
        }
        throw e;
      }
      try (Statement statement = connection.createStatement()) {
        for (String sql : statements) {
          statement.execute(sql);
        }
      }
      connection.commit();
      return true;
    } catch (SQLException e) {
      connection.rollback();
      throw new OutboxException("migration " + path + " failed: " + e.getMessage(), e);
    } finally {
      connection.setAutoCommit(true);
    }
  }

  private static int versionOf(String script) {
    Matcher matcher = VERSION.matcher(script);
    if (!matcher.matches()) {
      throw new IllegalArgumentException("migration file names look like V1__name.sql, was " + script);
    }
    return Integer.parseInt(matcher.group(1));
  }

  private static String read(String path) {
    ClassLoader loader = SchemaMigrator.class.getClassLoader();
    try (InputStream in = loader.getResourceAsStream(path)) {
      if (in == null) {
        throw new OutboxException("migration resource not found on the class path: " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new OutboxException("could not read migration resource " + path, e);
    }
  }

  /**
   * @param sql a migration file's text
   * @return the text with every {@code outbox4j_<name>} token renamed for the configured schema and prefix
   */
  String rewrite(String sql) {
    Matcher matcher = NAME_TOKEN.matcher(sql);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String name = matcher.group(1);
      String renamed = PER_TABLE.matcher(name).matches() ? names.unqualified(name) : names.qualified(name);
      matcher.appendReplacement(out, Matcher.quoteReplacement(renamed));
    }
    matcher.appendTail(out);
    return out.toString();
  }

  /**
   * Splits a script into statements at semicolons outside string literals, dollar quotes, line comments and
   * {@code BEGIN ... END} blocks.
   *
   * @param sql the script
   * @return its statements, without the separating semicolons
   */
  static List<String> statements(String sql) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int depth = 0;
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-') {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? sql.length() : end;
      } else if (c == '\'') {
        int end = i + 1;
        while (end < sql.length()) {
          if (sql.charAt(end) == '\'') {
            if (end + 1 < sql.length() && sql.charAt(end + 1) == '\'') {
              end += 2;
              continue;
            }
            break;
          }
          end++;
        }
        current.append(sql, i, Math.min(end + 1, sql.length()));
        i = end + 1;
      } else if (c == '$' && dollarTag(sql, i) != null) {
        String tag = Objects.requireNonNull(dollarTag(sql, i));
        int end = sql.indexOf(tag, i + tag.length());
        end = end < 0 ? sql.length() : end + tag.length();
        current.append(sql, i, end);
        i = end;
      } else if (Character.isLetter(c)) {
        int end = i;
        while (end < sql.length() && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
          end++;
        }
        String word = sql.substring(i, end).toUpperCase(Locale.ROOT);
        if (word.equals("BEGIN")) {
          depth++;
        } else if (word.equals("END") && depth > 0) {
          depth--;
        }
        current.append(sql, i, end);
        i = end;
      } else if (c == ';' && depth == 0) {
        add(out, current);
        i++;
      } else {
        current.append(c);
        i++;
      }
    }
    add(out, current);
    return out;
  }

  private static @Nullable String dollarTag(String sql, int start) {
    int end = start + 1;
    while (end < sql.length() && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
      end++;
    }
    return end < sql.length() && sql.charAt(end) == '$' ? sql.substring(start, end + 1) : null;
  }

  private static void add(List<String> out, StringBuilder current) {
    String statement = current.toString().strip();
    if (!statement.isEmpty()) {
      out.add(statement);
    }
    current.setLength(0);
  }
}
