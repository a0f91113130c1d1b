package dev.outbox4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * An optional flight recording of one scenario's measured runs, so a row whose CPU per message moved can be profiled
 * without the other rows' samples mixed in: with {@code -Doutbox4j.bench.jfr=<directory>} (on the bench JVM, e.g. in
 * {@code MAVEN_OPTS} for {@code exec:java}) each scenario's measured runs are recorded with JFR's {@code profile}
 * settings into {@code <directory>/<scenario id>.jfr}; read them with {@code jfr print --events jdk.ExecutionSample}
 * or {@code jfr summary}. Warm-ups and preparation are not recorded. Off by default.
 *
 * <p>Not thread-safe: the scenario runner's thread starts and stops it.
 */
final class ScenarioProfile implements AutoCloseable {
  /** The JVM property naming the directory of the recordings. */
  static final String PROPERTY = "outbox4j.bench.jfr";

  private final Recording recording;
  private final Path file;

  private ScenarioProfile(Recording recording, Path file) {
    this.recording = recording;
    this.file = file;
  }

  /**
   * @param scenarioId the scenario's id, the file's name
   * @return a started recording, or one that does nothing when {@value #PROPERTY} is not set
   */
  static ScenarioProfile start(String scenarioId) throws IOException {
    String directory = System.getProperty(PROPERTY);
    if (directory == null || directory.isBlank()) {
      return new ScenarioProfile(null, null);
    }
    Path folder = Files.createDirectories(Path.of(directory));
    try {
      Recording recording = new Recording(Configuration.getConfiguration("profile"));
      recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
      recording.start();
      return new ScenarioProfile(recording, folder.resolve(scenarioId + ".jfr"));
    } catch (java.text.ParseException e) {
      throw new IOException("JFR's profile settings cannot be read", e);
    }
  }

  @Override
  public void close() throws IOException {
    if (recording != null) {
      recording.stop();
      recording.dump(file);
      recording.close();
    }
  }
}
