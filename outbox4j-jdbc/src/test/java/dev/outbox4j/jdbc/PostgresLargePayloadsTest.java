package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.ClaimRequest;
import dev.outbox4j.spi.DeliveredAndClaimed;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.PlainSqlRow;
import dev.outbox4j.testkit.SettableClock;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * PostgreSQL's claims read payloads beyond {@link PostgresPayloads#INLINE_LIMIT} through a binary {@code COPY}: every
 * size on either side of the limit comes back byte for byte through every claim face (leased batches and leased rows,
 * heads only and keyed runs, the claim and the combined step), and an unreadable row with a large payload is still
 * quarantined as unreadable without stopping the claim.
 */
class PostgresLargePayloadsTest {
  private static final String PREFIX = "pglarge_";
  private static final Duration LEASE = Duration.ofSeconds(30);
  /** Around the limit, an empty payload, and two sizes that take several COPY messages' worth of bytes. */
  static final int[] SIZES = {0, 1, 4095, 4096, 4097, 64 * 1024, 1024 * 1024};

  private final SettableClock clock = SettableClock.atFixedStart();

  /** @return a payload of random bytes (not valid UTF-8 and not compressible), the same for the same size and salt */
  static byte[] payload(int size, int salt) {
    byte[] bytes = new byte[size];
    new Random(31L * size + salt).nextBytes(bytes);
    return bytes;
  }

  /**
   * Writes each size twice, unkeyed and under one key (so that runs carry large payloads too), drains {@code store}
   * three entries at a time, with the claim and {@code markDelivered} or with the combined step
   * ({@code markDeliveredAndClaim}), and checks that every entry came once with its payload byte for byte.
   */
  static void assertEverySizeComesBackByteExact(JdbcOutboxStore store, Instant now, int maxRun, boolean combined) {
    Map<UUID, byte[]> written = new HashMap<>();
    for (int size : SIZES) {
      for (String key : new String[] {null, "large-key"}) {
        byte[] payload = payload(size, key == null ? 1 : 2);
        Message message = Message.builder().withDestination("d").withOrderingKey(key).withPayload(payload).build();
        store.enqueue(message);
        written.put(message.id(), payload);
      }
    }
    Map<UUID, byte[]> received = new HashMap<>();
    List<Claim> previous = List.of();
    for (int round = 0; round < 100; round++) {
      List<Claim> claims;
      if (combined) {
        DeliveredAndClaimed step = store.markDeliveredAndClaim(previous, now,
            new ClaimRequest(3, now, LEASE, maxRun, Set.of()));
        assertThat(step.lost()).isEmpty();
        claims = step.claims();
      } else {
        assertThat(previous.isEmpty() ? List.of() : store.markDelivered(previous, now)).isEmpty();
        claims = store.claim(3, now, LEASE, maxRun);
      }
      for (Claim c : claims) {
        assertThat(received.put(c.entry().id(), c.entry().message().payload())).as("claimed once").isNull();
      }
      if (claims.isEmpty()) {
        break;
      }
      previous = claims;
    }
    assertThat(received.keySet()).as("runs of up to %d, combined step %s", maxRun, combined)
        .containsExactlyInAnyOrderElementsOf(written.keySet());
    written.forEach((id, payload) -> assertThat(received.get(id)).as("payload of %d bytes", payload.length)
        .isEqualTo(payload));
  }

  @ParameterizedTest(name = "{0}, runs of up to {1}, combined step {2}")
  @CsvSource({"LEASED_BATCHES, 1, false", "LEASED_BATCHES, 4, false", "LEASED_ROWS, 1, false",
      "LEASED_ROWS, 4, false", "LEASED_BATCHES, 1, true", "LEASED_BATCHES, 4, true", "LEASED_ROWS, 1, true",
      "LEASED_ROWS, 4, true"})
  void every_payload_size_comes_back_byte_exact_from_every_claim_face(ClaimStrategy strategy, int maxRun,
      boolean combined) {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, clock, Retention.deleteOnDelivery(), strategy);
    assertEverySizeComesBackByteExact(store, clock.instant(), maxRun, combined);
  }

  @ParameterizedTest
  @CsvSource({"LEASED_BATCHES", "LEASED_ROWS"})
  void an_unreadable_row_with_a_large_payload_is_quarantined_and_the_claim_goes_on(ClaimStrategy strategy) {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, clock, Retention.deleteOnDelivery(), strategy);
    byte[] large = payload(64 * 1024, 3);
    PlainSqlRow unreadable = new PlainSqlRow(UUID.randomUUID(), "d", "bad-key", large, "application/octet-stream",
        "not a JSON object");
    TestDatabase.POSTGRES.insertWithPlainSql(PREFIX, unreadable);
    Message readable = Message.builder().withDestination("d").withOrderingKey("good-key").withPayload(large).build();
    store.enqueue(readable);

    List<Claim> claims = store.claim(10, clock.instant(), LEASE);

    assertThat(claims).singleElement().satisfies(claim -> {
      assertThat(claim.entry().id()).isEqualTo(readable.id());
      assertThat(claim.entry().message().payload()).isEqualTo(large);
    });
    List<OutboxEntry> quarantined = store.quarantined(QuarantineQuery.first(10));
    assertThat(quarantined).singleElement().satisfies(entry -> {
      assertThat(entry.id()).isEqualTo(unreadable.id());
      assertThat(entry.quarantineKind()).isEqualTo(QuarantineKind.UNREADABLE);
      assertThat(entry.quarantineReason()).contains("column headers");
      assertThat(entry.message().payload()).as("the operator still sees the payload").isEqualTo(large);
    });
  }

  @Test
  void the_binary_copy_reads_the_payloads_of_the_seqs_that_exist() throws Exception {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, clock, Retention.deleteOnDelivery());
    byte[] large = payload(1024 * 1024, 4);
    OutboxEntry big = store.enqueue(Message.builder().withDestination("d").withPayload(large).build());
    OutboxEntry empty = store.enqueue(Message.builder().withDestination("d").build());
    try (java.sql.Connection c = TestDatabase.POSTGRES.pool(PREFIX).getConnection()) {
      assertThat(c.isWrapperFor(org.postgresql.PGConnection.class)).as("the COPY path, not the fallback").isTrue();
      Map<Long, byte[]> read = PostgresPayloads.read(c, TableNames.withPrefix(PREFIX).qualified("outbox"),
          List.of(big.sequence(), empty.sequence(), empty.sequence() + 1000));
      assertThat(read).containsOnlyKeys(big.sequence(), empty.sequence());
      assertThat(read.get(big.sequence())).isEqualTo(large);
      assertThat(read.get(empty.sequence())).isEmpty();
      try (java.sql.Statement after = c.createStatement()) {
        assertThat(after.executeQuery("SELECT 1").next()).as("the connection is usable after the COPY").isTrue();
      }
    }
  }

  @Test
  void the_copy_names_its_seqs_as_literals_and_refuses_a_negative_one() {
    assertThat(PostgresPayloads.copyStatement("public.o_outbox", List.of(7L, 42L)))
        .isEqualTo("COPY (SELECT seq, payload FROM public.o_outbox WHERE seq IN (7, 42)) TO STDOUT (FORMAT binary)");
    assertThatThrownBy(() -> PostgresPayloads.copyStatement("public.o_outbox", List.of(7L, -1L)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PostgresPayloads.copyStatement("public.o_outbox", List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void a_stream_that_is_not_a_binary_copy_is_refused() {
    assertThatThrownBy(() -> PostgresPayloads.parse(new ByteArrayInputStream("PGCOPY but text".getBytes())))
        .isInstanceOf(IOException.class);
    byte[] withoutTrailer = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0, 0, 0, 0, 0, 0, 0, 0, 0};
    assertThatThrownBy(() -> PostgresPayloads.parse(new ByteArrayInputStream(withoutTrailer)))
        .isInstanceOf(IOException.class).hasMessageContaining("trailer");
  }
}
