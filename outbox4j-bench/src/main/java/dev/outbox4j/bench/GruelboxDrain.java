package dev.outbox4j.bench;

import java.time.Duration;

/**
 * Scenario 3a: gruelbox drains the same N backlog: {@code flush()} until it finds nothing (each flush locks a batch,
 * pushes each entry's next attempt back and submits it), then waits until every entry was invoked and deleted.
 */
final class GruelboxDrain implements Scenario {
  private final BenchDatabase database;
  private final GruelboxSetup gruelbox;

  GruelboxDrain(BenchDatabase database, BenchOptions options) throws Exception {
    this.database = database;
    this.gruelbox = new GruelboxSetup(database, options.gruelboxThreads(), 0);
  }

  @Override
  public String id() {
    return "gruelbox-drain";
  }

  @Override
  public String title() {
    return "3 gruelbox: drain of the N backlog via flush(), delete on success";
  }

  @Override
  public void prepare(int messages) throws Exception {
    gruelbox.clear(database);
    gruelbox.writeBacklog(database, messages);
    gruelbox.delivered().reset(messages);
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    while (gruelbox.outbox().flush()) {
      // flush() returns true while it found work
    }
    gruelbox.delivered().await(Duration.ofMinutes(10));
    return Outcome.of(gruelbox.delivered().count());
  }

  @Override
  public void close() throws Exception {
    gruelbox.close();
  }
}
