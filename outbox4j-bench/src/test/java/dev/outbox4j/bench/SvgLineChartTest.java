package dev.outbox4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static dev.outbox4j.bench.SvgDocuments.byClass;
import static dev.outbox4j.bench.SvgDocuments.number;
import static dev.outbox4j.bench.SvgDocuments.parse;
import static dev.outbox4j.bench.SvgDocuments.texts;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The line chart on fixed series: the document parses as XML, each point sits where its values put it on axes that end
 * at round numbers, the hold band spans its interval, and the labels a reader needs are text in the document.
 */
class SvgLineChartTest {
  private static final SvgLineChart.Line BASELINE = new SvgLineChart.Line("baseline", "#999999", List.of(
      new SvgLineChart.Point(0, 800), new SvgLineChart.Point(5, 790), new SvgLineChart.Point(10, 810)));
  private static final SvgLineChart.Line HELD = new SvgLineChart.Line("held <RR> & co", "#0072B2", List.of(
      new SvgLineChart.Point(0, 800), new SvgLineChart.Point(5, Double.NaN), new SvgLineChart.Point(12, 400)));

  @Test
  void points_are_placed_by_their_values_on_axes_that_end_at_round_numbers() throws Exception {
    SvgLineChart chart = new SvgLineChart("Delivered", "minutes", "messages per second", List.of(BASELINE), null);

    List<double[]> points = points(byClass(parse(chart.svg()), "polyline", "line").get(0));

    assertThat(chart.xMax()).isEqualTo(10);
    assertThat(chart.yMax()).isEqualTo(1_000);
    assertThat(points).hasSize(3);
    assertThat(points.get(0)[0]).isCloseTo(SvgLineChart.LEFT, within(0.1));
    assertThat(points.get(0)[1]).isCloseTo(SvgLineChart.TOP + SvgLineChart.PLOT_HEIGHT * 0.2, within(0.1));
    assertThat(points.get(1)[0]).isCloseTo(SvgLineChart.LEFT + SvgLineChart.plotWidth() / 2, within(0.1));
    assertThat(points.get(1)[1]).isCloseTo(SvgLineChart.TOP + SvgLineChart.PLOT_HEIGHT * 0.21, within(0.1));
    assertThat(points.get(2)[0]).isCloseTo(SvgLineChart.LEFT + SvgLineChart.plotWidth(), within(0.1));
  }

  @Test
  void a_point_without_a_value_is_left_out_and_the_x_axis_makes_room_for_every_line_and_the_band() throws Exception {
    SvgLineChart chart = new SvgLineChart("Delivered", "minutes", "messages per second", List.of(BASELINE, HELD),
        new SvgLineChart.Band(2, 14, "transaction held"));

    Document svg = parse(chart.svg());
    List<double[]> held = points(byClass(svg, "polyline", "line").get(1));
    Element band = byClass(svg, "rect", "band").get(0);

    assertThat(chart.xMax()).isEqualTo(15);
    assertThat(held).hasSize(2);
    assertThat(held.get(1)[0]).isCloseTo(SvgLineChart.x(12, 15), within(0.1));
    assertThat(held.get(1)[1]).isCloseTo(chart.y(400, 1_000), within(0.1));
    assertThat(number(band, "x")).isCloseTo(SvgLineChart.x(2, 15), within(0.1));
    assertThat(number(band, "width")).isCloseTo(SvgLineChart.plotWidth() * 12 / 15, within(0.1));
  }

  @Test
  void title_legend_axis_labels_ticks_and_band_label_are_text_in_the_document_and_markup_in_them_is_escaped()
      throws Exception {
    SvgLineChart chart = new SvgLineChart("Claim <time> & more", "minutes since start", "milliseconds",
        List.of(BASELINE, HELD), new SvgLineChart.Band(2, 10, "held from 2 to 10 min"));

    Document svg = parse(chart.svg());

    assertThat(texts(svg, "title")).containsExactly("Claim <time> & more");
    assertThat(texts(svg, "legend")).containsExactly("baseline", "held <RR> & co");
    assertThat(texts(svg, "x-label")).containsExactly("minutes since start");
    assertThat(texts(svg, "y-label")).containsExactly("milliseconds");
    assertThat(texts(svg, "band-label")).containsExactly("held from 2 to 10 min");
    assertThat(texts(svg, "y-tick")).containsExactly("0", "200", "400", "600", "800", "1,000");
    assertThat(texts(svg, "x-tick")).containsExactly("0", "5", "10", "15");
    assertThat(svg.getDocumentElement().getAttribute("width")).isEqualTo(String.valueOf(SvgLineChart.WIDTH));
  }

  @Test
  void a_legend_too_wide_for_one_row_wraps_and_moves_the_plot_down_and_a_dashed_line_is_drawn_dashed()
      throws Exception {
    List<SvgLineChart.Line> lines = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      lines.add(new SvgLineChart.Line("relation number " + i, "#0072B2", i >= 8,
          List.of(new SvgLineChart.Point(0, 1), new SvgLineChart.Point(1, 2))));
    }
    SvgLineChart chart = new SvgLineChart("Sizes", "minutes", "MiB", lines, null);

    Document svg = parse(chart.svg());
    List<Element> legend = byClass(svg, "text", "legend");
    List<Element> drawn = byClass(svg, "polyline", "line");

    assertThat(chart.legendRows()).isGreaterThan(1);
    assertThat(chart.top()).isEqualTo(SvgLineChart.TOP + (chart.legendRows() - 1) * SvgLineChart.LEGEND_ROW);
    assertThat(legend).hasSize(12).allSatisfy(text -> assertThat(number(text, "x")).isLessThan(SvgLineChart.WIDTH));
    assertThat(number(legend.get(11), "y")).isGreaterThan(number(legend.get(0), "y"));
    assertThat(points(drawn.get(0)).get(0)[1]).isCloseTo(chart.top() + SvgLineChart.PLOT_HEIGHT / 2.0, within(0.1));
    assertThat(drawn.get(0).getAttribute("stroke-dasharray")).isEmpty();
    assertThat(drawn.get(8).getAttribute("stroke-dasharray")).isNotEmpty();
  }

  @Test
  void bad_series_are_refused_with_what_is_wrong() {
    assertThatThrownBy(() -> new SvgLineChart("Empty", "minutes", "ms", List.of(), null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs at least one line");
    assertThatThrownBy(() -> new SvgLineChart("Negative", "minutes", "ms",
        List.of(new SvgLineChart.Line("a", "#000000", List.of(new SvgLineChart.Point(1, -2)))), null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 'a' has a point off the axes");
    assertThatThrownBy(() -> new SvgLineChart.Band(5, 2, "backwards"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("band must run forwards");
  }

  private static List<double[]> points(Element polyline) {
    List<double[]> points = new ArrayList<>();
    for (String pair : polyline.getAttribute("points").trim().split(" ")) {
      String[] xy = pair.split(",");
      points.add(new double[] {Double.parseDouble(xy[0]), Double.parseDouble(xy[1])});
    }
    return points;
  }
}
