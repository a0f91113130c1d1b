package dev.outbox4j.relay.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads a YAML configuration file into flat, dotted keys, each remembering its line.
 *
 * <p>Why a node tree and not objects: composing (not constructing) YAML never instantiates anything the file names,
 * and each node keeps its position, so an error can say "relay.yaml line 12". Nested mappings become dotted keys
 * ({@code relay: {batch-size: 50}} is {@code relay.batch-size}); a key may itself contain dots
 * ({@code bootstrap.servers}). A list of plain values becomes one comma-separated value. Anchors, aliases and tags
 * that build objects are not needed and not interpreted.
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigSource {
  private ConfigSource() {}

  /**
   * @param file the YAML file
   * @return the values in file order, keyed by dotted key
   * @throws ConfigException when the file cannot be read, is not YAML, repeats a key or is not a mapping
   */
  public static Map<String, ConfigValue> readYaml(Path file) {
    String name = file.toString();
    Node root;
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      LoaderOptions options = new LoaderOptions();
      options.setAllowDuplicateKeys(false);
      options.setMaxAliasesForCollections(10);
      options.setCodePointLimit(1 << 20);
      root = new Yaml(options).compose(reader);
    } catch (NoSuchFileException e) {
      throw ConfigException.ofFile(name, "the configuration file does not exist", null);
    } catch (IOException e) {
      throw ConfigException.ofFile(name, "cannot read the configuration file (" + e.getClass().getSimpleName() + ")",
          e);
    } catch (MarkedYAMLException e) {
      int line = e.getProblemMark() == null ? 0 : e.getProblemMark().getLine() + 1;
      throw ConfigException.ofFile(name + " line " + line, "is not valid YAML: " + e.getProblem(), null);
    } catch (YAMLException e) {
      throw ConfigException.ofFile(name, "is not valid YAML", null);
    }
    Map<String, ConfigValue> values = new LinkedHashMap<>();
    if (root == null) {
      return values;
    }
    if (!(root instanceof MappingNode mapping)) {
      throw ConfigException.ofFile(name + " line " + line(root), "must be a mapping of keys to values", null);
    }
    flatten(name, "", mapping, values);
    return values;
  }

  private static void flatten(String file, String prefix, MappingNode mapping, Map<String, ConfigValue> out) {
    for (NodeTuple tuple : mapping.getValue()) {
      if (!(tuple.getKeyNode() instanceof ScalarNode keyNode)) {
        throw ConfigException.ofFile(file + " line " + line(tuple.getKeyNode()), "keys must be plain text", null);
      }
      String key = prefix + keyNode.getValue().trim();
      Node value = tuple.getValueNode();
      String origin = file + " line " + line(value);
      if (value instanceof MappingNode nested) {
        flatten(file, key + ".", nested, out);
      } else if (value instanceof ScalarNode scalar) {
        String text = Tag.NULL.equals(scalar.getTag()) ? "" : scalar.getValue().trim();
        put(out, new ConfigValue(key, text, origin));
      } else if (value instanceof SequenceNode sequence) {
        List<String> items = new ArrayList<>();
        for (Node item : sequence.getValue()) {
          if (!(item instanceof ScalarNode scalar)) {
            throw new ConfigException(key, "must be a list of plain values", file + " line " + line(item));
          }
          items.add(scalar.getValue().trim());
        }
        put(out, new ConfigValue(key, String.join(",", items), origin));
      } else {
        throw new ConfigException(key, "has a value of an unsupported kind", origin);
      }
    }
  }

  private static void put(Map<String, ConfigValue> out, ConfigValue value) {
    ConfigValue earlier = out.putIfAbsent(value.key(), value);
    if (earlier != null) {
      throw new ConfigException(value.key(), "is given twice (also at " + earlier.origin() + ")", value.origin());
    }
  }

  private static int line(Node node) {
    return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
  }
}
