/**
 * Benchmarks: outbox4j measured against the ceiling of its database, PostgreSQL or MariaDB (raw JDBC doing the same
 * work with nothing else), and against gruelbox transaction-outbox, side by side in one run. Not API; run through
 * {@link dev.outbox4j.bench.BenchMain}.
 *
 * <p>Every scenario reports messages per second and CPU per message (this JVM's process CPU plus the CPU of the
 * database processes or threads that served it), as the median, minimum and maximum of several runs after a warm-up.
 * Each run writes its report and, beside it, SVG charts of the drain rates and the latency percentiles
 * ({@link dev.outbox4j.bench.Charts}, drawn by {@link dev.outbox4j.bench.SvgBarChart}).
 */
@NullMarked
package dev.outbox4j.bench;

import org.jspecify.annotations.NullMarked;
