package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.Message;
import dev.outbox4j.spi.Claim;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Migrations: idempotent, renamed safely for a prefix and a schema, split correctly; names validated. */
class SchemaMigratorTest {

  @Test
  void table_prefix_and_schema_must_be_plain_identifiers() {
    assertThatThrownBy(() -> TableNames.withPrefix("x; DROP TABLE users; --"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table prefix");
    assertThatThrownBy(() -> new TableNames("bad-schema", "p_"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("schema");
    assertThatThrownBy(() -> TableNames.withPrefix("9starts_with_digit")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TableNames.withPrefix("p".repeat(TableNames.MAX_PREFIX_LENGTH + 1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new TableNames("app", "svc_").qualified("outbox")).isEqualTo("app.svc_outbox");
    assertThat(new TableNames("app", "svc_").unqualified("ix_outbox_claim")).isEqualTo("svc_ix_outbox_claim");
    assertThat(JdbcOutboxStore.builder(new org.h2.jdbcx.JdbcDataSource()).withDialect(H2Dialect.INSTANCE)
        .withTablePrefix("ok_").build().tableNames().prefix()).isEqualTo("ok_");
    assertThatThrownBy(() -> JdbcOutboxStore.builder(new org.h2.jdbcx.JdbcDataSource()).withTablePrefix("no good"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table prefix");
  }

  @Test
  void names_are_rewritten_qualified_for_schema_objects_and_bare_for_per_table_objects() {
    SchemaMigrator migrator =
        new SchemaMigrator(new org.h2.jdbcx.JdbcDataSource(), PostgresDialect.INSTANCE, new TableNames("app", "svc_"));

    assertThat(migrator.rewrite("CREATE INDEX outbox4j_ix_outbox_claim ON outbox4j_outbox (seq);"
        + " nextval('outbox4j_outbox_seq')"))
        .isEqualTo("CREATE INDEX svc_ix_outbox_claim ON app.svc_outbox (seq); nextval('app.svc_outbox_seq')");
  }

  @Test
  void scripts_split_at_semicolons_outside_quotes_dollar_quotes_and_blocks() {
    String script = "CREATE TABLE a (x TEXT DEFAULT ';'); -- a comment; with a semicolon\n"
        + "CREATE FUNCTION f() RETURNS trigger AS $$ BEGIN RETURN NULL; END $$;\n"
        + "CREATE TRIGGER t BEFORE INSERT ON a FOR EACH ROW\nBEGIN\n  SET NEW.x = 'y';\n  SET NEW.x = 'z';\nEND;\n";

    List<String> statements = SchemaMigrator.statements(script);

    assertThat(statements).hasSize(3);
    assertThat(statements.get(0)).isEqualTo("CREATE TABLE a (x TEXT DEFAULT ';')");
    assertThat(statements.get(1)).endsWith("END $$");
    assertThat(statements.get(2)).startsWith("CREATE TRIGGER").contains("SET NEW.x = 'z';").endsWith("END");
  }

  @Test
  void migrate_is_idempotent_and_a_schema_qualified_store_works_on_postgresql() throws Exception {
    DataSource pool = TestDatabase.POSTGRES.pool("pgmig_");
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS outbox4j_test_schema CASCADE");
      s.execute("CREATE SCHEMA outbox4j_test_schema");
    }
    JdbcOutboxStore store = JdbcOutboxStore.builder(pool)
        .withTableNames(new TableNames("outbox4j_test_schema", "mig_")).build();

    assertThat(store.migrate()).isEqualTo(JdbcOutboxStore.MIGRATIONS.size());
    assertThat(store.migrate()).isZero();

    Message first = Message.builder().withDestination("d").withOrderingKey("k").withPayload("1").build();
    Message second = Message.builder().withDestination("d").withOrderingKey("k").withPayload("2").build();
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      store.outbox().writeAll(c, List.of(first, second));
      c.commit();
    }
    List<Claim> claims = store.claim(10, Instant.now(), Duration.ofSeconds(30));
    assertThat(claims).extracting(Claim::id).containsExactly(first.id());
    assertThat(store.markDelivered(claims, Instant.now())).isEmpty();
    assertThat(store.claim(10, Instant.now(), Duration.ofSeconds(30))).extracting(Claim::id)
        .containsExactly(second.id());
  }
}
