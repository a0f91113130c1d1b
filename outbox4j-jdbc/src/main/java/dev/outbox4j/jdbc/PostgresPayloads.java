package dev.outbox4j.jdbc;

import dev.outbox4j.jdbc.internal.UnnamedStatements;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * How a PostgreSQL claim reads its entries' payloads: a payload of up to {@value #INLINE_LIMIT} bytes inline in the
 * claim's own statement, a larger one afterwards through a binary {@code COPY} on the same connection.
 *
 * <h2>Why</h2>
 * The store sends every statement unnamed so that it works through a transaction-mode pooler
 * ({@link dev.outbox4j.jdbc.internal.UnnamedStatements}), and pgjdbc then receives results in PostgreSQL's text
 * format: a {@code bytea} crosses the wire as two hex characters per byte and is decoded in the JVM, which made most
 * of the relay's CPU per KiB with 16 KiB and 256 KiB payloads. {@code COPY ... TO STDOUT (FORMAT binary)} sends the
 * bytes as they are, needs no prepared statement, and works through PgBouncer in transaction mode; it costs a round
 * trip, so small payloads, the common case, stay in the claim's statement. The statement's columns are
 * {@link #columns}: the payload is {@code NULL} beyond the limit and its length follows the entry's columns.
 *
 * <p>{@code COPY} takes no bind parameters: its {@code seq}s are numeric literals rendered here from {@code long}s
 * (never text from elsewhere), each checked to be a {@code seq} (not negative). The table name is the store's
 * validated identifier. With another driver than pgjdbc the large payloads are read by a bound {@code SELECT}
 * instead, in text format as before.
 *
 * <p>Only readable rows get their large payloads: an unreadable row ({@link OutboxRows.Read#unreadable()}) is
 * quarantined, never sent, and keeps an empty payload in its entry. A row that is gone by the time its payload is
 * read (possible only when the claim's statement and the {@code COPY} run in separate transactions, and then only
 * for an entry deleted meanwhile) is left out, as if the claim's statement had not seen it.
 *
 * <p>Stateless and thread-safe. Package-private: used by {@link ClaimFace} and {@link LeasedBatchClaims}.
 */
final class PostgresPayloads {
  /** Largest payload, in bytes, read inline in a claim's statement; larger ones are read through {@code COPY}. */
  static final int INLINE_LIMIT = 4096;

  private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0};
  /** The header flag telling that each tuple starts with an OID (never asked for). */
  private static final int FLAG_OIDS = 1 << 16;

  private PostgresPayloads() {}

  /**
   * @param alias the outbox table's alias
   * @return {@link OutboxRows#columns} with the payload only when it is at most {@value #INLINE_LIMIT} bytes (else
   *     {@code NULL}), followed by the payload's length ({@code NULL} for a {@code NULL} payload): what
   *     {@link #readRows} reads
   */
  static String columns(String alias) {
    String payload = alias + ".payload";
    return OutboxRows.columns(alias, "CASE WHEN octet_length(" + payload + ") <= " + INLINE_LIMIT + " THEN " + payload
        + " END") + ", octet_length(" + payload + ")";
  }

  /**
   * Runs a query over {@link #columns} and reads its rows ({@link OutboxRows#read}), then reads the large payloads of
   * the readable ones on the same connection, in its transaction if it is in one.
   *
   * @return the rows, in the query's order, less those gone before their payload was read
   */
  static List<OutboxRows.Read> readRows(Connection connection, PreparedStatement query, OutboxRows rows, String table)
      throws SQLException {
    List<OutboxRows.Read> read = new ArrayList<>();
    Set<Long> large = new HashSet<>();
    int lengthColumn = OutboxRows.COLUMN_COUNT + 1;
    try (ResultSet result = query.executeQuery()) {
      while (result.next()) {
        OutboxRows.Read row = rows.read(result);
        long length = result.getLong(lengthColumn);
        if (!result.wasNull() && length > INLINE_LIMIT && row.readable()) {
          large.add(row.entry().sequence());
        }
        read.add(row);
      }
    }
    if (large.isEmpty()) {
      return read;
    }
    Map<Long, byte[]> payloads = read(connection, table, new ArrayList<>(large));
    List<OutboxRows.Read> complete = new ArrayList<>(read.size());
    for (OutboxRows.Read row : read) {
      long seq = row.entry().sequence();
      byte[] payload = payloads.get(seq);
      if (payload != null) {
        complete.add(row.withPayload(payload));
      } else if (!large.contains(seq)) {
        complete.add(row);
      }
    }
    return complete;
  }

  /** @return the payloads of those of {@code seqs} that still exist, by {@code seq} ({@code NULL} read as empty) */
  static Map<Long, byte[]> read(Connection connection, String table, List<Long> seqs) throws SQLException {
    if (UnnamedStatements.isPgjdbc(connection)) {
      org.postgresql.PGConnection postgres = connection.unwrap(org.postgresql.PGConnection.class);
      try (InputStream copy = new org.postgresql.copy.PGCopyInputStream(postgres, copyStatement(table, seqs))) {
        Map<Long, byte[]> payloads = parse(copy);
        // Read to the end of the COPY, so that it completes: closing it while active would cancel it on the server.
        if (copy.read() != -1) {
          throw new IOException("the binary COPY goes on after its trailer");
        }
        return payloads;
      } catch (IOException e) {
        throw new SQLException("could not read the binary COPY of " + seqs.size() + " payloads from " + table, e);
      }
    }
    Map<Long, byte[]> payloads = new HashMap<>();
    try (PreparedStatement select = connection.prepareStatement("SELECT seq, payload FROM " + table
        + " WHERE seq = ANY(?)")) {
      select.setArray(1, connection.createArrayOf("bigint", seqs.toArray()));
      try (ResultSet result = select.executeQuery()) {
        while (result.next()) {
          byte[] payload = result.getBytes(2);
          payloads.put(result.getLong(1), payload == null ? new byte[0] : payload);
        }
      }
    }
    return payloads;
  }

  /**
   * @param table the qualified outbox table (a validated identifier)
   * @param seqs the entries, at least one
   * @return the {@code COPY} of their {@code seq} and payload, in PostgreSQL's binary format, the {@code seq}s as
   *     literals
   * @throws IllegalArgumentException if {@code seqs} is empty or holds a negative number
   */
  static String copyStatement(String table, List<Long> seqs) {
    if (seqs.isEmpty()) {
      throw new IllegalArgumentException("no seqs to copy");
    }
    StringJoiner literals = new StringJoiner(", ", "(", ")");
    for (long seq : seqs) {
      if (seq < 0) {
        throw new IllegalArgumentException("a seq is never negative, was " + seq);
      }
      literals.add(Long.toString(seq));
    }
    return "COPY (SELECT seq, payload FROM " + table + " WHERE seq IN " + literals + ") TO STDOUT (FORMAT binary)";
  }

  /**
   * Parses {@code COPY (SELECT seq, payload ...) TO STDOUT (FORMAT binary)}: the signature, the flags and the header
   * extension, then per tuple its field count (2) and each field's length ({@code -1} for {@code NULL}) and bytes, up
   * to the trailer (a field count of {@code -1}).
   *
   * @return the payloads by {@code seq}, a {@code NULL} payload as empty
   * @throws IOException if the stream fails or is not such a {@code COPY}
   */
  static Map<Long, byte[]> parse(InputStream stream) throws IOException {
    DataInputStream in = new DataInputStream(stream);
    byte[] signature = new byte[SIGNATURE.length];
    in.readFully(signature);
    if (!Arrays.equals(signature, SIGNATURE)) {
      throw new IOException("not a binary COPY: its signature is wrong");
    }
    int flags = in.readInt();
    if ((flags & FLAG_OIDS) != 0) {
      throw new IOException("the binary COPY carries OIDs, which were not asked for");
    }
    int extension = in.readInt();
    if (extension < 0 || in.skipBytes(extension) != extension) {
      throw new IOException("the binary COPY's header extension is cut short");
    }
    Map<Long, byte[]> payloads = new HashMap<>();
    while (true) {
      short fields;
      try {
        fields = in.readShort();
      } catch (EOFException e) {
        throw new IOException("the binary COPY ends without its trailer", e);
      }
      if (fields == -1) {
        return payloads;
      }
      if (fields != 2) {
        throw new IOException("a binary COPY tuple has " + fields + " fields, expected 2 (seq, payload)");
      }
      byte[] seq = field(in);
      if (seq == null || seq.length != Long.BYTES) {
        throw new IOException("a binary COPY tuple's seq is not a bigint");
      }
      byte[] payload = field(in);
      payloads.put(toLong(seq), payload == null ? new byte[0] : payload);
    }
  }

  private static byte @Nullable [] field(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length == -1) {
      return null;
    }
    if (length < 0) {
      throw new IOException("a binary COPY field has the length " + length);
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }

  private static long toLong(byte[] bigEndian) {
    long value = 0;
    for (byte b : bigEndian) {
      value = (value << 8) | (b & 0xff);
    }
    return value;
  }
}
