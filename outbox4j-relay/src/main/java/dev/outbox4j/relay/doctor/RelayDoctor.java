package dev.outbox4j.relay.doctor;

import dev.outbox4j.RelayBuilder;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.jdbc.doctor.DatabaseDoctor;
import dev.outbox4j.jdbc.doctor.DoctorReport;
import dev.outbox4j.jdbc.doctor.Finding;
import dev.outbox4j.relay.config.RelayConfig;
import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The doctor of a configured relay: the database checks over the relay's own pool, with its table names and lease, then
 * the checks of its configuration. Used by the {@code doctor} command, at {@code run} start and by the server.
 *
 * <p>Stateless and thread-safe.
 */
public final class RelayDoctor {
  private RelayDoctor() {}

  /**
   * @param config the relay's configuration
   * @return the lease the relay runs with when it is not configured: {@link RelayBuilder#DEFAULT_LEASE} (the relay
   *     lengthens it only for a transport slower to answer than a third of it)
   */
  public static Duration lease(RelayConfig config) {
    Duration lease = config.relay().lease();
    return lease == null ? RelayBuilder.DEFAULT_LEASE : lease;
  }

  /**
   * @param config the relay's configuration
   * @param dataSource the relay's pool (at least two connections)
   * @param clock the relay's clock
   * @return the database's findings, then the configuration's
   * @throws dev.outbox4j.OutboxException if the database cannot be reached
   */
  public static DoctorReport examine(RelayConfig config, DataSource dataSource, Clock clock) {
    TableNames names = new TableNames(config.database().schema(), config.database().tablePrefix());
    return new DatabaseDoctor(dataSource, names, lease(config), clock, config.database().preparedStatements())
        .examine()
        .with(ConfigChecks.run(config, new KafkaProgressTopicCheck()));
  }

  /**
   * Logs one warning line per finding that is not OK, the most serious first; nothing when all are OK.
   *
   * @param report what the doctor found
   */
  public static void log(DoctorReport report) {
    System.Logger logger = System.getLogger(RelayDoctor.class.getName());
    for (Finding finding : report.notOk()) {
      logger.log(finding.level() == Finding.Level.INFO ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
          "doctor " + finding.level() + " " + finding.check() + ": " + finding.found()
              + (finding.fix().isEmpty() ? "" : "; fix: " + finding.fix()));
    }
  }
}
