package dev.outbox4j.jdbc.doctor;

import java.time.Duration;

/**
 * The idle-transaction timeout against the lease. The store's transactions are short, but a relay process can stall
 * between two statements of one (a garbage-collection pause, a starved CPU, a frozen container) for as long as its
 * lease allows before another relay takes its claims over; a server that ends the session sooner fails the relay's
 * pass and its claims wait for their lease to pass before they are sent.
 */
final class IdleTimeouts {
  private IdleTimeouts() {}

  /** @return the least timeout the fix proposes: twice the lease */
  static Duration wanted(Duration lease) {
    return lease.multipliedBy(2);
  }

  /**
   * @param shown the setting as found
   * @param timeout the timeout; zero when off
   * @param lease the relay's lease
   * @param fix where to change it
   * @return SLOW when it is on and shorter than the lease, else OK
   */
  static Finding judge(String shown, Duration timeout, Duration lease, String fix) {
    if (timeout.isZero() || timeout.isNegative()) {
      return Finding.ok("idle-timeout", shown + ": off");
    }
    if (timeout.compareTo(lease) < 0) {
      return Finding.slow("idle-timeout", shown + " is shorter than the lease (" + lease.toMillis() + " ms): a relay"
          + " that stalls inside a claim or completion for longer loses its session, and its entries wait out the"
          + " lease before they are sent", fix);
    }
    return Finding.ok("idle-timeout", shown + ", not shorter than the lease (" + lease.toMillis() + " ms)");
  }
}
