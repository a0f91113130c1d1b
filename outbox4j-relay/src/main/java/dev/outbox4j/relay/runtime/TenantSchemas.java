package dev.outbox4j.relay.runtime;

import dev.outbox4j.OutboxException;
import dev.outbox4j.relay.config.RelayConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The tenant schemas of a tenants entry ({@code outboxes.<name>.tenants}), read now: the schemas of
 * {@code information_schema.schemata} whose whole name matches {@code tenants.schemas}, or the first column of
 * {@code tenants.query}. A name that is not an identifier (letters, digits, '_', at most 63, not starting with a digit)
 * is skipped with a warning, since it becomes a schema in SQL text.
 *
 * <p>Stateless and thread-safe.
 */
public final class TenantSchemas {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
  private static final System.Logger LOG = System.getLogger(TenantSchemas.class.getName());

  private TenantSchemas() {}

  /**
   * @param entry a tenants entry
   * @param dataSource its database
   * @return the tenant schemas, sorted
   * @throws OutboxException when they cannot be read
   * @throws IllegalArgumentException when the entry lists no tenants
   */
  public static Set<String> find(RelayConfig.Outbox entry, DataSource dataSource) {
    RelayConfig.Tenants tenants = entry.tenants();
    if (tenants == null) {
      throw new IllegalArgumentException("outbox " + entry.name() + " lists no tenants");
    }
    Set<String> schemas = new TreeSet<>();
    try (Connection connection = dataSource.getConnection()) {
      if (tenants.schemas() != null) {
        try (PreparedStatement statement = connection.prepareStatement(
            "SELECT schema_name FROM information_schema.schemata");
            ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            String schema = rows.getString(1);
            if (tenants.schemas().matcher(schema).matches()) {
              add(entry, schemas, schema);
            }
          }
        }
      } else {
        try (Statement statement = connection.createStatement();
            ResultSet rows = statement.executeQuery(tenants.query())) {
          while (rows.next()) {
            add(entry, schemas, rows.getString(1));
          }
        }
      }
      return schemas;
    } catch (SQLException e) {
      throw new OutboxException("could not read the tenant schemas of outbox " + entry.name() + ": "
          + e.getMessage(), e);
    }
  }

  private static void add(RelayConfig.Outbox entry, Set<String> schemas, String schema) {
    if (schema != null && IDENTIFIER.matcher(schema).matches()) {
      schemas.add(schema);
    } else {
      LOG.log(System.Logger.Level.WARNING, "outbox " + entry.name() + ": skipping tenant schema '" + schema
          + "', not an identifier (letters, digits, '_', at most 63)");
    }
  }
}
