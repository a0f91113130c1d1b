package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What an action on many entries prints when it changes fewer than it counted. */
class BulkActionTest {

  @Test
  void fewer_changed_than_counted_says_how_many_fell_out_and_why() {
    StringWriter out = new StringWriter();
    CliContext context = new CliContext(new PrintWriter(out, true), new PrintWriter(new StringWriter(), true),
        Map.of(), Clock.systemUTC());
    int[] stillWaiting = {12}; // two of the 14 counted were claimed by a relay between the count and the change

    int code = BulkAction.run(context, 14, "14 waiting entries for destination 'erp'", "park", "parked", false, true,
        true, "claimed by a relay, delivered or changed by someone else", (limit, now) -> {
          int changed = Math.min(limit, stillWaiting[0]);
          stillWaiting[0] -= changed;
          return changed;
        });

    assertThat(code).isEqualTo(ExitCodes.OK);
    assertThat(out.toString()).contains("14 waiting entries for destination 'erp'",
        "parked 12 of the 14 entries counted; 2 were claimed by a relay, delivered or changed by someone else"
            + " meanwhile");
  }

  @Test
  void as_many_changed_as_counted_is_said_plainly() {
    StringWriter out = new StringWriter();
    CliContext context = new CliContext(new PrintWriter(out, true), new PrintWriter(new StringWriter(), true),
        Map.of(), Clock.systemUTC());

    BulkAction.run(context, 1, "1 waiting entry", "park", "parked", false, true, true, "changed", (limit, now) -> 1);

    assertThat(out.toString()).endsWith("parked 1 entry" + System.lineSeparator());
  }
}
