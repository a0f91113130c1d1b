package dev.outbox4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static dev.outbox4j.bench.SvgDocuments.byClass;
import static dev.outbox4j.bench.SvgDocuments.number;
import static dev.outbox4j.bench.SvgDocuments.parse;
import static dev.outbox4j.bench.SvgDocuments.texts;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The charts on fixed figures: each document parses as XML, bars and whiskers are where their values put them, and
 * the labels a reader needs are there. Geometry and text are read back from the parsed document, not compared as
 * bytes.
 */
class SvgBarChartTest {
  private static final List<SvgBarChart.Series> TWO = List.of(new SvgBarChart.Series("first", "#0072B2"),
      new SvgBarChart.Series("second", "#E69F00"));

  @Test
  void bar_lengths_are_proportional_to_their_values_on_an_axis_that_ends_at_a_round_number() throws Exception {
    SvgBarChart chart = new SvgBarChart("Rates", "messages per second", "%,.0f", TWO, List.of(
        new SvgBarChart.Row("ten thousand", List.of(new SvgBarChart.Bar(0, 10_000, Double.NaN, Double.NaN))),
        new SvgBarChart.Row("five thousand", List.of(new SvgBarChart.Bar(1, 5_000, Double.NaN, Double.NaN))),
        new SvgBarChart.Row("nine thousand four hundred",
            List.of(new SvgBarChart.Bar(0, 9_400, Double.NaN, Double.NaN)))));

    List<Element> bars = byClass(parse(chart.svg()), "rect", "bar");

    assertThat(chart.axisMax()).isEqualTo(10_000);
    assertThat(bars).hasSize(3);
    assertThat(number(bars.get(0), "width")).isCloseTo(SvgBarChart.plotWidth(), within(0.1));
    assertThat(number(bars.get(1), "width")).isCloseTo(SvgBarChart.plotWidth() / 2, within(0.1));
    assertThat(number(bars.get(2), "width")).isCloseTo(SvgBarChart.plotWidth() * 0.94, within(0.1));
    assertThat(bars).allSatisfy(bar -> assertThat(number(bar, "x")).isEqualTo(SvgBarChart.LEFT));
    assertThat(bars.get(0).getAttribute("fill")).isEqualTo("#0072B2");
    assertThat(bars.get(1).getAttribute("fill")).isEqualTo("#E69F00");
    // Rows go down the page in the order given.
    assertThat(number(bars.get(1), "y")).isGreaterThan(number(bars.get(0), "y"));
    assertThat(number(bars.get(2), "y")).isGreaterThan(number(bars.get(1), "y"));
  }

  @Test
  void a_whisker_spans_the_lowest_to_the_highest_run_and_the_axis_makes_room_for_it() throws Exception {
    SvgBarChart chart = new SvgBarChart("Rates", "messages per second", "%,.0f", TWO, List.of(
        new SvgBarChart.Row("spread", List.of(new SvgBarChart.Bar(0, 3_000, 2_000, 4_100)))));

    Document svg = parse(chart.svg());
    Element whisker = (Element) byClass(svg, "g", "range").get(0).getElementsByTagName("line").item(0);

    assertThat(chart.axisMax()).isEqualTo(5_000);
    double scale = SvgBarChart.plotWidth() / 5_000;
    assertThat(number(whisker, "x1")).isCloseTo(SvgBarChart.LEFT + 2_000 * scale, within(0.1));
    assertThat(number(whisker, "x2")).isCloseTo(SvgBarChart.LEFT + 4_100 * scale, within(0.1));
    assertThat(number(byClass(svg, "rect", "bar").get(0), "width")).isCloseTo(3_000 * scale, within(0.1));
    assertThat(texts(svg, "value")).containsExactly("3,000");
  }

  @Test
  void the_legend_names_only_the_series_the_chart_has_bars_of() throws Exception {
    SvgBarChart chart = new SvgBarChart("Rates", "messages per second", "%,.0f", TWO, List.of(
        new SvgBarChart.Row("only the second", List.of(new SvgBarChart.Bar(1, 3_000, Double.NaN, Double.NaN)))));

    assertThat(texts(parse(chart.svg()), "legend")).containsExactly("second");
  }

  @Test
  void a_bar_without_a_range_has_no_whisker() throws Exception {
    SvgBarChart chart = new SvgBarChart("Rates", "messages per second", "%,.0f", TWO, List.of(
        new SvgBarChart.Row("one run", List.of(new SvgBarChart.Bar(0, 3_000, Double.NaN, Double.NaN)))));

    assertThat(byClass(parse(chart.svg()), "g", "range")).isEmpty();
  }

  @Test
  void title_legend_row_labels_ticks_and_axis_label_are_text_in_the_document_and_markup_in_them_is_escaped()
      throws Exception {
    SvgBarChart chart = new SvgBarChart("Drain <raw> & \"outbox4j\"", "messages per second", "%,.0f", TWO, List.of(
        new SvgBarChart.Row("1 ceiling: claim → DELETE", List.of(new SvgBarChart.Bar(0, 1_234, 1_000, 1_500))),
        new SvgBarChart.Row("2 outbox4j <keyed>", List.of(new SvgBarChart.Bar(1, 800, Double.NaN, Double.NaN)))));

    Document svg = parse(chart.svg());

    assertThat(texts(svg, "title")).containsExactly("Drain <raw> & \"outbox4j\"");
    assertThat(texts(svg, "legend")).containsExactly("first", "second");
    assertThat(texts(svg, "label")).containsExactly("1 ceiling: claim → DELETE", "2 outbox4j <keyed>");
    assertThat(texts(svg, "axis-label")).containsExactly("messages per second");
    assertThat(texts(svg, "tick")).containsExactly("0", "500", "1,000", "1,500");
    assertThat(texts(svg, "value")).containsExactly("1,234", "800");
    assertThat(svg.getDocumentElement().getAttribute("width")).isEqualTo(String.valueOf(SvgBarChart.WIDTH));
  }

  @Test
  void a_long_label_wraps_at_spaces_onto_lines_that_fit_and_reads_whole_in_the_document() throws Exception {
    String label = "2 outbox4j drain, no-op transport, 1 relay, unordered, delete; experiment: relay connections"
        + " with synchronous_commit off";
    SvgBarChart chart = new SvgBarChart("Rates", "messages per second", "%,.0f", TWO, List.of(
        new SvgBarChart.Row(label, List.of(new SvgBarChart.Bar(0, 1, Double.NaN, Double.NaN)))));

    List<String> lines = SvgBarChart.wrap(label);

    assertThat(lines).hasSize(2);
    assertThat(lines).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(SvgBarChart.LABEL_CHARACTERS));
    assertThat(String.join("", lines)).isEqualTo(label);
    assertThat(texts(parse(chart.svg()), "label")).containsExactly(label);
    assertThat(SvgBarChart.wrap("short")).containsExactly("short");
  }

  @Test
  void tick_steps_are_one_two_or_five_times_a_power_of_ten() {
    assertThat(SvgBarChart.tickStep(9_400)).isEqualTo(2_000);
    assertThat(SvgBarChart.tickStep(4_100)).isEqualTo(1_000);
    assertThat(SvgBarChart.tickStep(23)).isEqualTo(5);
    assertThat(SvgBarChart.tickStep(0.8)).isCloseTo(0.2, within(1e-12));
    assertThat(SvgBarChart.tickStep(0)).isEqualTo(1);
  }

  @Test
  void bad_figures_are_refused_with_what_is_wrong() {
    assertThatThrownBy(() -> new SvgBarChart.Bar(0, -1, Double.NaN, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bar value must be zero or more");
    assertThatThrownBy(() -> new SvgBarChart.Bar(0, 5, 6, 4))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bar range");
    assertThatThrownBy(() -> new SvgBarChart("Empty", "ms", "%.1f", TWO, List.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs at least one row");
    assertThatThrownBy(() -> new SvgBarChart("Rates", "ms", "%.1f", TWO,
        List.of(new SvgBarChart.Row("row", List.of(new SvgBarChart.Bar(2, 1, Double.NaN, Double.NaN))))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names series 2");
  }

  @Test
  void the_drain_chart_has_the_ceiling_outbox4j_and_gruelbox_drains_and_nothing_else() throws Exception {
    List<ScenarioResult> results = List.of(
        Figures.twoRuns("ceiling-delete", "1 ceiling", 30_000, 34_000),
        Figures.twoRuns("outbox4j-drain-delete", "2 outbox4j", 20_000, 22_000),
        Figures.twoRuns("write-business", "4 business row alone", 9_000, 9_500),
        Figures.twoRuns("gruelbox-drain", "3 gruelbox", 900, 1_100));

    SvgBarChart chart = Charts.drain(results).orElseThrow();
    Document svg = parse(chart.svg());
    List<Element> bars = byClass(svg, "rect", "bar");

    assertThat(texts(svg, "label")).containsExactly("1 ceiling", "2 outbox4j", "3 gruelbox");
    assertThat(bars).extracting(bar -> bar.getAttribute("fill")).containsExactly(
        Charts.DRAIN_SERIES.get(0).colour(), Charts.DRAIN_SERIES.get(1).colour(), Charts.DRAIN_SERIES.get(2).colour());
    assertThat(number(bars.get(1), "width") / number(bars.get(0), "width")).isCloseTo(21_000.0 / 32_000, within(1e-3));
    assertThat(byClass(svg, "g", "range")).hasSize(3);
    assertThat(texts(svg, "title")).singleElement().asString().contains("whisker: lowest to highest run");
    assertThat(Charts.latency(results)).isEmpty();
  }

  @Test
  void the_latency_chart_shows_p50_p90_p99_and_max_of_each_latency_scenario() throws Exception {
    ScenarioResult latency = new ScenarioResult("latency-outbox4j", "6 outbox4j latency", List.of(
        Figures.latency(new RunMeasurement.Latency(2, 4, 8, 40))));

    Document svg = parse(Charts.latency(List.of(latency, Figures.twoRuns("ceiling-delete", "1 ceiling", 1, 1)))
        .orElseThrow().svg());
    List<Element> bars = byClass(svg, "rect", "bar");

    assertThat(texts(svg, "label")).containsExactly("6 outbox4j latency");
    assertThat(texts(svg, "legend")).containsExactly("p50", "p90", "p99", "max");
    assertThat(texts(svg, "value")).containsExactly("2.0 ms", "4.0 ms", "8.0 ms", "40.0 ms");
    assertThat(number(bars.get(3), "width")).isCloseTo(SvgBarChart.plotWidth(), within(0.1));
    assertThat(number(bars.get(0), "width")).isCloseTo(SvgBarChart.plotWidth() / 20, within(0.1));
    assertThat(byClass(svg, "g", "range")).as("one run has no range").isEmpty();
    assertThat(texts(svg, "title")).singleElement().asString().endsWith("(one run)");
  }

  @Test
  void write_puts_each_chart_with_data_beside_the_report_and_removes_a_stale_one(@TempDir Path directory)
      throws Exception {
    Files.writeString(directory.resolve("latest-" + Charts.LATENCY), "an earlier run's chart");

    List<String> written =
        Charts.write(List.of(Figures.twoRuns("ceiling-delete", "1 ceiling", 100, 120)), directory, "latest");

    assertThat(written).containsExactly("latest-" + Charts.DRAIN);
    assertThat(parse(Files.readString(directory.resolve("latest-" + Charts.DRAIN))).getDocumentElement()
        .getTagName()).isEqualTo("svg");
    assertThat(directory.resolve("latest-" + Charts.LATENCY)).doesNotExist();
  }
}
