package dev.outbox4j.jdbc.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the doctor found, in check order.
 *
 * <p>Immutable and thread-safe.
 *
 * @param database the database examined, as its driver names it (product and version)
 * @param findings every finding, OK ones included
 */
public record DoctorReport(String database, List<Finding> findings) {
  /** Copies the findings. */
  public DoctorReport {
    Objects.requireNonNull(database, "database");
    findings = List.copyOf(findings);
  }

  /** @return whether any finding breaks a guarantee */
  public boolean unsafe() {
    return findings.stream().anyMatch(Finding::isUnsafe);
  }

  /**
   * @param more further findings (the relay's own configuration checks)
   * @return this report with them appended
   */
  public DoctorReport with(List<Finding> more) {
    List<Finding> all = new ArrayList<>(findings);
    all.addAll(more);
    return new DoctorReport(database, all);
  }

  /** @return the findings that are not OK, most serious first */
  public List<Finding> notOk() {
    return findings.stream().filter(f -> f.level() != Finding.Level.OK)
        .sorted(java.util.Comparator.comparing(Finding::level)).toList();
  }
}
