package dev.outbox4j.relay.server;

/**
 * How an action on many entries reports what it changed, the same from the CLI and the dashboard's API: the count,
 * and when it is below the count the operator saw (the dry run, or the count printed first), how many fell out and
 * why, since relays and other operators keep working while an operator decides. Stateless; thread-safe.
 */
public final class Shortfall {
  private Shortfall() {}

  /**
   * @param done the action's past tense: {@code parked}, {@code requeued}, {@code discarded}
   * @param changed how many entries it changed
   * @param counted how many it counted for the operator first
   * @param countedWhen when they were counted, after the word "counted": {@code in the dry run}, or empty
   * @param why what became of the rest, after "were": {@code claimed by a relay or changed by someone else}
   * @return for example {@code parked 14 entries}, or {@code parked 12 of the 14 entries counted in the dry run; 2
   *     were claimed by a relay or changed by someone else meanwhile}
   */
  public static String explain(String done, long changed, long counted, String countedWhen, String why) {
    if (changed >= counted) {
      return done + " " + changed + " " + entries(changed);
    }
    long missing = counted - changed;
    return done + " " + changed + " of the " + counted + " " + entries(counted) + " counted"
        + (countedWhen.isEmpty() ? "" : " " + countedWhen) + "; " + missing + (missing == 1 ? " was " : " were ")
        + why + " meanwhile";
  }

  /** @return {@code entry} or {@code entries} */
  private static String entries(long count) {
    return count == 1 ? "entry" : "entries";
  }
}
