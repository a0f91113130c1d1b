package dev.outbox4j.relay.cli;

import dev.outbox4j.relay.demo.Demo;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code demo}: everything in one process, to watch messages flow. */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Run a self-contained demo: an embedded H2 database in a folder (reused by the next run), a "
        + "producer writing keyed order events in real transactions (some rolled back), a relay delivering them over "
        + "signed HTTP webhooks to a sink hosted here, one destination that always refuses (so quarantine shows), "
        + "and the dashboard. Ctrl-C or SIGTERM stop it gracefully.")
final class DemoCommand implements Callable<Integer> {
  private final CliContext context;

  @Option(names = "--port", paramLabel = "N", defaultValue = "8080",
      description = "dashboard port on 127.0.0.1 (default 8080; 0 picks a free one)")
  int port;

  @Option(names = "--dir", paramLabel = "D", defaultValue = "outbox4j-demo",
      description = "folder of the demo's database (default ./outbox4j-demo)")
  Path dir;

  @Option(names = "--rate", paramLabel = "N", defaultValue = "20",
      description = "order transactions per second (default 20)")
  int rate;

  DemoCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws InterruptedException {
    if (port < 0 || port > 65_535 || rate < 1 || rate > 1000) {
      context.err().println("--port must be 0..65535 and --rate 1..1000");
      context.err().flush();
      return ExitCodes.USAGE;
    }
    Demo demo = Demo.start(port, dir, rate, context.clock());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      context.out().println("stopping the demo gracefully...");
      context.out().flush();
      demo.close();
      context.out().println("stopped; run the same command again to continue with the same database");
      context.out().flush();
      stopped.countDown();
    }, "outbox4j-demo-shutdown"));
    context.out().println(demo.describe());
    context.out().flush();
    stopped.await();
    return ExitCodes.OK;
  }
}
