package dev.outbox4j.relay.doctor;

import dev.outbox4j.jdbc.doctor.DoctorReport;
import dev.outbox4j.jdbc.doctor.Finding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A doctor report as people read it (a table, what was found wrapped under its column, the fix on one line of its own
 * so a statement can be copied whole) and as machines read it (a map for JSON).
 *
 * <p>Stateless and thread-safe.
 */
public final class DoctorOutput {
  private static final int TEXT_WIDTH = 88;
  private static final String INDENT = " ".repeat(8 + 20);

  private DoctorOutput() {}

  /**
   * @param report what the doctor found
   * @param database the database's URL as shown (without credentials)
   * @param lease the lease the checks used
   * @return the table, with a header line and a summary line
   */
  public static String table(DoctorReport report, String database, Duration lease) {
    StringBuilder out = new StringBuilder();
    out.append("outbox4j doctor: ").append(report.database()).append(" at ").append(database).append(", lease ")
        .append(lease.toMillis() / 1000.0).append(" s\n\n");
    out.append(String.format("%-8s%-20s%s%n", "LEVEL", "CHECK", "FOUND / FIX"));
    for (Finding finding : report.findings()) {
      out.append(String.format("%-8s%-20s", finding.level(), finding.check()));
      List<String> lines = wrap(finding.found());
      if (!finding.fix().isEmpty()) {
        lines.add("fix: " + finding.fix()); // whole, so a statement can be copied as it is
      }
      for (int i = 0; i < lines.size(); i++) {
        out.append(i == 0 ? "" : INDENT).append(lines.get(i)).append('\n');
      }
    }
    Map<Finding.Level, Integer> counts = counts(report);
    out.append('\n').append(counts.get(Finding.Level.UNSAFE)).append(" unsafe, ").append(counts.get(Finding.Level.SLOW))
        .append(" slow, ").append(counts.get(Finding.Level.INFO)).append(" info, ").append(counts.get(Finding.Level.OK))
        .append(" ok\n");
    return out.toString();
  }

  /**
   * @param report what the doctor found
   * @param database the database's URL as shown (without credentials)
   * @param lease the lease the checks used
   * @return {@code database}, {@code url}, {@code leaseSeconds}, {@code unsafe} (whether any finding is), the counts
   *     per level and {@code findings} ({@code level}, {@code check}, {@code found}, {@code fix}), for JSON
   */
  public static Map<String, Object> json(DoctorReport report, String database, Duration lease) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("database", report.database());
    body.put("url", database);
    body.put("leaseSeconds", lease.toMillis() / 1000.0);
    body.put("unsafe", report.unsafe());
    Map<String, Object> counts = new LinkedHashMap<>();
    counts(report).forEach((level, count) -> counts.put(level.name(), count));
    body.put("counts", counts);
    List<Object> findings = new ArrayList<>();
    for (Finding finding : report.findings()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("level", finding.level().name());
      row.put("check", finding.check());
      row.put("found", finding.found());
      row.put("fix", finding.fix());
      findings.add(row);
    }
    body.put("findings", findings);
    return body;
  }

  private static Map<Finding.Level, Integer> counts(DoctorReport report) {
    Map<Finding.Level, Integer> counts = new EnumMap<>(Finding.Level.class);
    for (Finding.Level level : Finding.Level.values()) {
      counts.put(level, 0);
    }
    report.findings().forEach(f -> counts.merge(f.level(), 1, Integer::sum));
    return counts;
  }

  private static List<String> wrap(String text) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > TEXT_WIDTH) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    lines.add(line.toString());
    return lines;
  }
}
