package dev.outbox4j.kafka;

import dev.outbox4j.kafka.ProgressTopicCheck.Finding;
import dev.outbox4j.kafka.ProgressTopicCheck.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Judges the brokers' transaction settings against the cluster's size and a transport's {@link KafkaTransactions}:
 * what makes the transactional mode deliver nothing, and what weakens its bounds. The transport runs it at start and
 * before its first batch, on what the Admin API lets it read ({@code describeCluster}, {@code describeConfigs} of each
 * broker); a cluster that does not let it read them is not judged.
 *
 * <h2>The rules</h2>
 * <ul>
 *   <li>{@code transaction.state.log.replication.factor} at most the number of brokers, while the transaction log
 *       ({@code __transaction_state}) does not exist yet: the coordinator cannot create it otherwise, and every
 *       producer waits in {@code InitTransactions} for a coordinator that never comes (the client says only
 *       "did not complete coordinator discovery"). <b>Refused.</b>
 *   <li>{@code transaction.state.log.min.isr} at most the replicas the log will have (the smaller of its replication
 *       factor and the number of brokers), while it does not exist yet: otherwise no transaction can be written.
 *       <b>Refused.</b>
 *   <li>{@code transaction.max.timeout.ms} at least the transport's {@code transactions.timeout}: the coordinator
 *       refuses a longer one in {@code InitTransactions}. <b>Refused.</b>
 *   <li>{@code transaction.abort.timed.out.transaction.cleanup.interval.ms} at most the transport's
 *       {@code transactions.abort-sweep}, which its answer bound assumes: a slower sweep can let a transaction of a
 *       frozen relay end after the bound. A <b>warning</b>.
 * </ul>
 * A setting a broker does not report is not judged.
 *
 * <p>Stateless and thread-safe.
 */
public final class ClusterSettingsCheck {
  /** The brokers' replication factor of the transaction log. */
  public static final String REPLICATION_FACTOR = "transaction.state.log.replication.factor";
  /** The brokers' min.insync.replicas of the transaction log. */
  public static final String MIN_ISR = "transaction.state.log.min.isr";
  /** The longest transaction timeout the brokers accept. */
  public static final String MAX_TIMEOUT = "transaction.max.timeout.ms";
  /** How often the brokers abort timed-out transactions. */
  public static final String ABORT_SWEEP = "transaction.abort.timed.out.transaction.cleanup.interval.ms";
  /** The settings {@link #check} reads. */
  public static final List<String> SETTINGS = List.of(REPLICATION_FACTOR, MIN_ISR, MAX_TIMEOUT, ABORT_SWEEP);

  private ClusterSettingsCheck() {}

  /**
   * @param settings the transactional settings the cluster is judged against
   * @param brokers how many brokers the cluster has
   * @param config one broker's settings (name → value; a missing name is not judged)
   * @param transactionLogExists whether {@code __transaction_state} exists (its replication is then settled)
   * @return the findings, refusals first; empty when the cluster is fit for the mode
   */
  public static List<Finding> check(KafkaTransactions settings, int brokers, Map<String, String> config,
      boolean transactionLogExists) {
    List<Finding> refused = new ArrayList<>();
    List<Finding> warned = new ArrayList<>();
    long replication = number(config.get(REPLICATION_FACTOR));
    if (!transactionLogExists && replication > brokers) {
      refused.add(new Finding(Severity.REFUSED, REPLICATION_FACTOR, "the brokers have " + REPLICATION_FACTOR + "="
          + replication + " on a cluster of " + brokers + (brokers == 1 ? " broker" : " brokers") + ": the"
          + " transaction log __transaction_state cannot be created, so no transaction can start (producers wait in"
          + " InitTransactions for coordinator discovery); set it to at most " + brokers + " on every broker"));
    }
    long minIsr = number(config.get(MIN_ISR));
    long replicas = replication < 0 ? -1 : Math.min(replication, brokers);
    if (!transactionLogExists && replicas > 0 && minIsr > replicas) {
      refused.add(new Finding(Severity.REFUSED, MIN_ISR, "the brokers have " + MIN_ISR + "=" + minIsr + " but the"
          + " transaction log will have " + replicas + (replicas == 1 ? " replica" : " replicas") + ": no transaction"
          + " can be written; set it to at most " + replicas + " (and below " + REPLICATION_FACTOR
          + " to survive a broker's loss)"));
    }
    long maxTimeout = number(config.get(MAX_TIMEOUT));
    long timeout = settings.timeout().toMillis();
    if (maxTimeout >= 0 && maxTimeout < timeout) {
      refused.add(new Finding(Severity.REFUSED, MAX_TIMEOUT, "the brokers have " + MAX_TIMEOUT + "=" + maxTimeout
          + ", below this transport's transactions.timeout (" + timeout + " ms): the coordinator refuses its"
          + " producers; lower transactions.timeout or raise " + MAX_TIMEOUT));
    }
    long sweep = number(config.get(ABORT_SWEEP));
    long assumed = settings.abortSweep().toMillis();
    if (sweep > assumed) {
      warned.add(new Finding(Severity.WARNING, ABORT_SWEEP, "the brokers have " + ABORT_SWEEP + "=" + sweep
          + ", slower than this transport's transactions.abort-sweep (" + assumed + " ms), which its answer bound"
          + " assumes: a frozen relay's transaction may end after the bound; set transactions.abort-sweep to at least "
          + sweep + " ms"));
    }
    refused.addAll(warned);
    return refused;
  }

  /** @return the number, or -1 when absent or unreadable */
  private static long number(@Nullable String value) {
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
