package dev.outbox4j.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.memory.InProcessTransport;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * A relay process for {@link PostgresThroughPgBouncerTest}: a relay through the given PgBouncer URL (the driver's
 * default settings) whose transport records each message, in arrival order, in {@code <prefix>received} over a direct
 * connection; it prints {@code ERROR <error>} for each relay error and {@code CLAIM LOST} for each lost claim, and
 * ends when no entry is waiting. Arguments: PgBouncer URL, direct URL, table prefix.
 */
final class PgBouncerRelay {
  private PgBouncerRelay() {}

  public static void main(String[] args) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setMaximumPoolSize(3);
    try (HikariDataSource pool = new HikariDataSource(config);
        Connection direct = DriverManager.getConnection(args[1])) {
      JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withTablePrefix(args[2]).build();
      PreparedStatement record = direct.prepareStatement("INSERT INTO " + args[2] + "received (ordering_key, position)"
          + " VALUES (?, ?)");
      InProcessTransport transport = InProcessTransport.consuming(message -> {
        try {
          record.setString(1, message.orderingKey().orElseThrow());
          record.setInt(2, Integer.parseInt(new String(message.payload(), StandardCharsets.UTF_8)));
          record.executeUpdate();
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      });
      RelayListener printing = new RelayListener() {
        @Override
        public void onError(Throwable error) {
          System.out.println("ERROR " + error);
        }

        @Override
        public void onClaimLost(OutboxEntry entry) {
          System.out.println("CLAIM LOST " + entry.id());
        }
      };
      try (Relay relay = Relay.builder(store, transport).withBatchSize(7).onEvent(printing).build()) {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (store.stats(Instant.now()).pending() > 0 && System.nanoTime() < deadline) {
          relay.flush();
        }
      }
      System.out.println("DONE");
    }
  }
}
