package dev.outbox4j.kafka;

import dev.outbox4j.spi.DeliveryOutcome;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.jspecify.annotations.Nullable;

/**
 * Turns what the Kafka producer reported into a {@link DeliveryOutcome}.
 *
 * <h2>Why the table is what it is</h2>
 * A permanent outcome quarantines the entry at once and blocks its ordering key until an operator acts, so only
 * failures that no retry of <em>this message</em> can fix are permanent: a topic name the broker rejects, a record
 * larger than the producer or broker accepts, a record the broker rejects as invalid, a serialization failure, and an
 * authorization refusal (an ACL is an explicit "no"; the operator fixes it and requeues). Everything else is
 * retryable, including anything not recognised: the retry policy's attempt limit still quarantines it in the end, while
 * a wrong "permanent" would quarantine healthy messages during a transient outage.
 *
 * <p>Timeouts (no metadata within {@code max.block.ms}, no answer within {@code delivery.timeout.ms}) and network
 * failures (a lost connection, a disconnect) say that the cluster cannot be reached, not that this record is wrong:
 * they are reported as {@link DeliveryOutcome#unavailable}, so the relay pauses instead of charging attempts. A missing
 * topic is the exception: it concerns the records of that topic only, and stays an ordinary retryable failure.
 *
 * <p>Authentication failures (a refused TLS handshake: an unknown CA, an expired certificate; refused SASL
 * credentials) are reported as {@link DeliveryOutcome#unavailable}: they are a property of the connection (a rotated
 * password, a broker restarting its SASL setup), they hit every message alike, and charging or quarantining entries
 * for them would turn an operations hiccup into a mass quarantine.
 *
 * <p>A topic that does not exist (with auto-creation off) surfaces as a {@link TimeoutException} caused by an
 * {@link UnknownTopicOrPartitionException} after {@code max.block.ms}. It is retryable by default, because topics are
 * often created by a deployment step that may lag the first message; {@code missingTopicPermanent} makes it permanent.
 *
 * <p>Stateless and thread-safe.
 */
final class KafkaFailureClassifier {
  private static final int MAX_REASON_LENGTH = 500;

  private final boolean missingTopicPermanent;

  KafkaFailureClassifier(boolean missingTopicPermanent) {
    this.missingTopicPermanent = missingTopicPermanent;
  }

  /**
   * @param failure what the producer threw or handed to the send callback
   * @return the outcome; never {@link DeliveryOutcome#delivered()}
   */
  DeliveryOutcome classify(Throwable failure) {
    Throwable error = unwrap(failure);
    String reason = describe(error);
    if (isMissingTopic(error)) {
      return missingTopicPermanent
          ? DeliveryOutcome.permanent("topic does not exist: " + reason)
          : DeliveryOutcome.retryable("topic does not exist (yet): " + reason);
    }
    if (error instanceof TimeoutException || error instanceof NetworkException) {
      return DeliveryOutcome.unavailable(reason); // no metadata, no answer, connection lost: the cluster, not it
    }
    if (error instanceof RetriableException) {
      return DeliveryOutcome.retryable(reason); // leader changes, not enough replicas, ...
    }
    if (error instanceof InvalidTopicException
        || error instanceof RecordTooLargeException
        || error instanceof RecordBatchTooLargeException
        || error instanceof InvalidRecordException
        || error instanceof SerializationException
        || error instanceof AuthorizationException
        || error instanceof UnsupportedVersionException) {
      return DeliveryOutcome.permanent(reason);
    }
    if (error instanceof AuthenticationException) {
      return DeliveryOutcome.unavailable(reason); // TLS or SASL refused: the connection, not this record
    }
    if (error instanceof InterruptException) {
      return DeliveryOutcome.retryable(reason);
    }
    return DeliveryOutcome.retryable(reason); // unknown: let the attempt limit decide
  }

  private static boolean isMissingTopic(Throwable error) {
    return error instanceof TimeoutException && error.getCause() instanceof UnknownTopicOrPartitionException;
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable error = failure;
    while ((error instanceof ExecutionException || error instanceof CompletionException) && error.getCause() != null) {
      error = error.getCause();
    }
    return error;
  }

  /** The exception's type and message: Kafka's messages name topics and sizes, never record contents. */
  static String describe(Throwable error) {
    @Nullable String message = error.getMessage();
    String text = error.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    return text.length() <= MAX_REASON_LENGTH ? text : text.substring(0, MAX_REASON_LENGTH) + "…";
  }
}
