package dev.outbox4j.chaos;

import java.io.IOException;
import java.io.InputStream;

/**
 * Ends a child JVM when its parent is gone. {@link ChildProcesses} leaves a child's standard input a pipe from the
 * parent; the pipe reaches end-of-file only when the parent exits, however it exits (SIGKILL included), so a thread
 * blocked reading it is a death notice that needs no polling. Used by every main class the suite launches.
 */
final class ChildWatchdog {
  private ChildWatchdog() {}

  /** Starts the daemon thread that halts this JVM once standard input closes. */
  static void haltWhenParentExits() {
    Thread watchdog = new Thread(() -> {
      InputStream in = System.in;
      try {
        while (in.read() >= 0) {
          // the parent never writes; any byte is ignored
        }
      } catch (IOException e) {
        // a broken pipe means the same as end-of-file
      }
      Runtime.getRuntime().halt(3);
    }, "outbox4j-chaos-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
