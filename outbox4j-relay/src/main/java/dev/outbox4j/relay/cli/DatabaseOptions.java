package dev.outbox4j.relay.cli;

import dev.outbox4j.relay.config.ConfigException;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.config.ConfigValue;
import dev.outbox4j.relay.config.RelayConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The options that say which outbox a command works on: a configuration file, or a URL given directly (the password
 * then comes from {@code OUTBOX4J_DATABASE_PASSWORD}, never from the command line, where other users could see it).
 *
 * <p>Not thread-safe; filled by picocli.
 */
public final class DatabaseOptions {
  @Option(names = {"-c", "--config"}, paramLabel = "FILE",
      description = "YAML configuration file (see docs/relay-app.md); environment variables OUTBOX4J_* override it")
  @Nullable Path config;

  @Option(names = "--url", paramLabel = "JDBC_URL",
      description = "database URL, instead of or over the file's database.url")
  @Nullable String url;

  @Option(names = "--user", paramLabel = "NAME", description = "database user (password: OUTBOX4J_DATABASE_PASSWORD)")
  @Nullable String user;

  @Option(names = "--table-prefix", paramLabel = "PREFIX", description = "table prefix (default outbox4j_)")
  @Nullable String tablePrefix;

  @Option(names = "--schema", paramLabel = "SCHEMA", description = "schema of the outbox tables")
  @Nullable String schema;

  @Option(names = "--outbox", paramLabel = "NAME",
      description = "which outbox of a configuration with 'outboxes:' (a tenant is ENTRY:SCHEMA); required there,"
          + " except by 'status', which then summarises every outbox")
  @Nullable String outbox;

  /**
   * @param context the environment to read
   * @return the configuration of the one outbox the command works on: the {@code --outbox} named, or the only one
   * @throws ConfigException when the configuration has several outboxes and {@code --outbox} names none of them
   */
  RelayConfig read(CliContext context) {
    RelayConfig all = readAll(context);
    if (outbox != null) {
      return all.outbox(outbox);
    }
    if (all.named()) {
      throw new ConfigException("--outbox", "is required: this configuration has several outboxes ("
          + String.join(", ", all.outboxes().keySet()) + "; a tenant is ENTRY:SCHEMA)", all.source());
    }
    return all;
  }

  /**
   * @param context the environment to read
   * @return the whole configuration, every outbox (the one named by {@code --outbox} only when it names one)
   */
  RelayConfig readAll(CliContext context) {
    List<ConfigValue> options = new ArrayList<>();
    if (url != null) {
      options.add(new ConfigValue("database.url", url, "option --url"));
    }
    if (user != null) {
      options.add(new ConfigValue("database.username", user, "option --user"));
    }
    if (tablePrefix != null) {
      options.add(new ConfigValue("database.table-prefix", tablePrefix, "option --table-prefix"));
    }
    if (schema != null) {
      options.add(new ConfigValue("database.schema", schema, "option --schema"));
    }
    try {
      return ConfigReader.read(config, options, context.environment());
    } catch (ConfigException e) {
      if (!e.key().equals("database.url")) {
        throw e;
      }
      throw new ConfigException("database.url", config == null
          ? "is required: give --url JDBC_URL, or --config FILE with database.url in it, or set OUTBOX4J_DATABASE_URL"
          : "is required: set it in the file, give --url JDBC_URL, or set OUTBOX4J_DATABASE_URL", config == null
          ? "command line" : config.toString());
    }
  }
}
