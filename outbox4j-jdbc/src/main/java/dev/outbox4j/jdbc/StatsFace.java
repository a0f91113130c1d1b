package dev.outbox4j.jdbc;

import dev.outbox4j.jdbc.internal.ConnectionWork;
import dev.outbox4j.spi.DestinationStats;
import dev.outbox4j.spi.OutboxStats;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a {@link JdbcOutboxStore} reads for gauges, dashboards and health checks: the outbox's stats and each
 * destination's. The statements are {@link StatsSql}'s; they read every undelivered entry, so this class runs them
 * where they cost the database least (on PostgreSQL, on one core).
 */
final class StatsFace extends StoreJdbc {
  StatsFace(StoreJdbc store) {
    super(store);
  }

  public OutboxStats stats(Instant now) {
    boolean postgres = isPostgres();
    String sql = StatsSql.overall(names, postgres);
    return statsRead("stats", postgres, c -> {
      try (PreparedStatement select = c.prepareStatement(sql)) {
        bindStatsNow(select, postgres, now);
        try (ResultSet row = select.executeQuery()) {
          row.next();
          return statsOf(row);
        }
      }
    });
  }

  public List<DestinationStats> destinationStats(Instant now, int limit) {
    DestinationStats.checkLimit(limit);
    boolean postgres = isPostgres();
    String sql = StatsSql.byDestination(names, postgres);
    return statsRead("destinationStats", postgres, c -> {
      try (PreparedStatement select = c.prepareStatement(sql)) {
        select.setInt(bindStatsNow(select, postgres, now), limit);
        // A blank destination (a row the store cannot read) is shown under one placeholder name; NULL and blanks of
        // different lengths are separate groups in the database, merged here in the order they came.
        Map<String, OutboxStats> rows = new LinkedHashMap<>();
        try (ResultSet row = select.executeQuery()) {
          while (row.next()) {
            String destination = row.getString("destination");
            if (destination == null || destination.isBlank()) {
              destination = DestinationStats.UNREADABLE;
            }
            rows.merge(destination, statsOf(row), OutboxStats::plus);
          }
        }
        List<DestinationStats> result = new ArrayList<>();
        rows.forEach((destination, stats) -> result.add(new DestinationStats(destination, stats)));
        return List.copyOf(result);
      }
    });
  }

  /**
   * Runs a stats read. On PostgreSQL in a transaction of its own that plans without parallel workers
   * ({@link StatsSql#ONE_CORE}): a stats query reads every undelivered entry, and with the workers PostgreSQL gives a
   * large scan it would take every core of the database for its time, the claims and completions of every outbox on
   * the server waiting for a core meanwhile; on one core it takes a little longer and leaves the others to them.
   */
  private <R> R statsRead(String what, boolean postgres, ConnectionWork<R> work) {
    if (!postgres) {
      return autoCommit(what, work);
    }
    return inTransaction(what, c -> {
      try (Statement set = c.createStatement()) {
        set.execute(StatsSql.ONE_CORE);
      }
      return work.run(c);
    });
  }

  /** Binds the stats statements' {@code now} parameters; returns the index of the next parameter. */
  int bindStatsNow(PreparedStatement select, boolean postgres, Instant now) throws SQLException {
    dialect.setInstant(select, 1, now);
    if (postgres) {
      dialect.setInstant(select, 2, now);
      return 3;
    }
    return 2;
  }

  OutboxStats statsOf(ResultSet row) throws SQLException {
    return new OutboxStats(row.getLong("waiting"), row.getLong("blocked"), row.getLong("in_flight"),
        row.getLong("quarantined"), dialect.getInstant(row, "oldest_waiting"),
        dialect.getInstant(row, "oldest_blocked"));
  }
}
