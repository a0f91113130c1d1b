package dev.outbox4j.relay.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Evaluates the little PromQL that docs/metrics.md's alerts use on one Prometheus text scrape: a selector with
 * {@code =} / {@code !=} label matchers, {@code max}/{@code min}/{@code sum}/{@code count} with an optional
 * {@code by (...)}, and a comparison with a number that keeps the series it holds for. Anything else, and any metric
 * or label the scrape does not have, is refused with an {@link IllegalArgumentException}: a doc example must not name
 * what does not exist.
 *
 * <p>Not thread-safe; one instance per scrape.
 */
final class PromQlSubset {
  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final Pattern TOKEN =
      Pattern.compile("\\s*(!=|==|>=|<=|[{}(),=<>]|[a-zA-Z_:][a-zA-Z0-9_:]*|\"[^\"]*\"|[0-9.]+)");

  private final Map<String, List<Map.Entry<Map<String, String>, Double>>> series = new LinkedHashMap<>();
  private List<String> tokens = List.of();
  private int next;
  /** The labels of the metric last selected, to check a {@code by} against. */
  private Set<String> selectedLabels = Set.of();

  /** @param scrape the body of a {@code /metrics} answer */
  PromQlSubset(String scrape) {
    for (String line : scrape.split("\n")) {
      Matcher sample = SAMPLE.matcher(line);
      if (line.startsWith("#") || !sample.find()) {
        continue;
      }
      Map<String, String> labels = new TreeMap<>();
      if (sample.group(2) != null) {
        Matcher label = LABEL.matcher(sample.group(2));
        while (label.find()) {
          labels.put(label.group(1), label.group(2));
        }
      }
      series.computeIfAbsent(sample.group(1), name -> new ArrayList<>())
          .add(Map.entry(labels, Double.parseDouble(sample.group(3))));
    }
  }

  /**
   * @param expression one expression of the subset ({@code #} comments allowed)
   * @return the label sets of the series it returns, written {@code {a="b",c="d"}}, sorted
   */
  Set<String> evaluate(String expression) {
    StringBuilder code = new StringBuilder();
    expression.lines().filter(line -> !line.strip().startsWith("#")).forEach(line -> code.append(line).append(' '));
    List<String> found = new ArrayList<>();
    Matcher token = TOKEN.matcher(code.toString().strip());
    int at = 0;
    while (at < token.regionEnd() && token.find(at) && token.start() == at) {
      found.add(token.group(1));
      at = token.end();
    }
    if (at != code.toString().strip().length()) {
      throw new IllegalArgumentException("outside the subset at '" + code.toString().strip().substring(at) + "'");
    }
    tokens = found;
    next = 0;
    Map<Map<String, String>, Double> result = comparison();
    if (next != tokens.size()) {
      throw new IllegalArgumentException("unexpected '" + tokens.get(next) + "' in " + code);
    }
    Set<String> labelSets = new TreeSet<>();
    for (Map<String, String> labels : result.keySet()) {
      StringBuilder written = new StringBuilder("{");
      labels.forEach((name, value) -> written.append(written.length() > 1 ? "," : "").append(name).append("=\"")
          .append(value).append('"'));
      labelSets.add(written.append('}').toString());
    }
    return labelSets;
  }

  private Map<Map<String, String>, Double> comparison() {
    Map<Map<String, String>, Double> values = vector();
    if (next < tokens.size() && Set.of(">", "<", ">=", "<=", "==", "!=").contains(tokens.get(next))) {
      String operator = tokens.get(next++);
      double bound = Double.parseDouble(take());
      values.values().removeIf(value -> !switch (operator) {
        case ">" -> value > bound;
        case "<" -> value < bound;
        case ">=" -> value >= bound;
        case "<=" -> value <= bound;
        case "==" -> value == bound;
        default -> value != bound;
      });
    }
    return values;
  }

  private Map<Map<String, String>, Double> vector() {
    String name = take();
    if (Set.of("max", "min", "sum", "count").contains(name)) {
      List<String> by = new ArrayList<>();
      if (tokens.get(next).equals("by")) {
        next++;
        expect("(");
        while (!tokens.get(next).equals(")")) {
          by.add(take());
          if (tokens.get(next).equals(",")) {
            next++;
          }
        }
        expect(")");
      }
      expect("(");
      Map<Map<String, String>, Double> inner = comparison();
      expect(")");
      for (String label : by) {
        if (!selectedLabels.contains(label)) {
          throw new IllegalArgumentException("groups by " + label + ", a label the scrape's series do not have");
        }
      }
      Map<Map<String, String>, Double> groups = new LinkedHashMap<>();
      for (Map.Entry<Map<String, String>, Double> entry : inner.entrySet()) {
        Map<String, String> group = new TreeMap<>();
        for (String label : by) {
          if (entry.getKey().containsKey(label)) {
            group.put(label, entry.getKey().get(label));
          }
        }
        double value = name.equals("count") ? 1 : entry.getValue();
        groups.merge(group, value, (a, b) -> switch (name) {
          case "max" -> Math.max(a, b);
          case "min" -> Math.min(a, b);
          default -> a + b;
        });
      }
      return groups;
    }
    List<Map.Entry<Map<String, String>, Double>> samples = series.get(name);
    if (samples == null) {
      throw new IllegalArgumentException("the scrape has no metric " + name);
    }
    selectedLabels = new TreeSet<>();
    samples.forEach(sample -> selectedLabels.addAll(sample.getKey().keySet()));
    Map<Map<String, String>, Double> selected = new LinkedHashMap<>();
    samples.forEach(sample -> selected.put(sample.getKey(), sample.getValue()));
    if (next < tokens.size() && tokens.get(next).equals("{")) {
      next++;
      while (!tokens.get(next).equals("}")) {
        String label = take();
        String operator = take();
        String value = take().replace("\"", "");
        if (samples.stream().noneMatch(sample -> sample.getKey().containsKey(label))) {
          throw new IllegalArgumentException("the scrape's " + name + " has no label " + label);
        }
        if (!operator.equals("=") && !operator.equals("!=")) {
          throw new IllegalArgumentException("matcher " + operator + " is outside the subset");
        }
        selected.keySet().removeIf(labels -> value.equals(labels.get(label)) != operator.equals("="));
        if (tokens.get(next).equals(",")) {
          next++;
        }
      }
      expect("}");
    }
    return selected;
  }

  private String take() {
    if (next >= tokens.size()) {
      throw new IllegalArgumentException("the expression ends too early");
    }
    return tokens.get(next++);
  }

  private void expect(String token) {
    String found = take();
    if (!found.equals(token)) {
      throw new IllegalArgumentException("expected '" + token + "', found '" + found + "'");
    }
  }
}
