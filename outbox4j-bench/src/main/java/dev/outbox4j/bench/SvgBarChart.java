package dev.outbox4j.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A horizontal bar chart written as a plain SVG document: no script, no external style, no chart library. Each row
 * is a label on its own line (so long scenario titles stay readable at README width) with one bar per series below
 * it; a bar may carry a range, drawn as a black whisker from its lowest to its highest run. The value axis starts at
 * zero and ends at a round number, with gridlines, tick labels and an axis label that names the unit.
 *
 * <p>Immutable; {@link #svg()} may be called from any thread.
 */
final class SvgBarChart {
  /** Width of the drawing in SVG user units (pixels at 100 %): about the width of a rendered README. */
  static final int WIDTH = 800;

  static final int LEFT = 16;
  static final int RIGHT = 110;
  static final int BAR_HEIGHT = 14;
  private static final int BAR_GAP = 2;
  private static final int LABEL_HEIGHT = 18;
  /** The longest label line: about what fits across {@link #WIDTH} at the labels' 13 px. */
  static final int LABEL_CHARACTERS = 105;
  private static final int ROW_GAP = 10;
  private static final int TITLE_HEIGHT = 30;
  private static final int LEGEND_HEIGHT = 24;
  private static final int AXIS_HEIGHT = 48;
  private static final String FONT = "font-family=\"Helvetica, Arial, sans-serif\"";

  /**
   * One kind of bar, in the legend and in every row.
   *
   * @param name the legend text
   * @param colour a CSS colour, e.g. {@code #0072B2}
   */
  record Series(String name, String colour) {}

  /**
   * One bar.
   *
   * @param series index into the chart's series
   * @param value the bar's length (a median), not negative
   * @param min the lowest run, or NaN when there is no range to show
   * @param max the highest run, or NaN when there is no range to show
   */
  record Bar(int series, double value, double min, double max) {
    Bar {
      if (!(value >= 0)) {
        throw new IllegalArgumentException("bar value must be zero or more, was " + value);
      }
      if (Double.isNaN(min) != Double.isNaN(max) || min > max) {
        throw new IllegalArgumentException("bar range must be both NaN or min ≤ max, was " + min + "–" + max);
      }
    }

    boolean hasRange() {
      return !Double.isNaN(min);
    }

    double end() {
      return hasRange() ? Math.max(value, max) : value;
    }
  }

  /**
   * One labelled group of bars.
   *
   * @param label the text above the bars
   * @param bars at least one
   */
  record Row(String label, List<Bar> bars) {
    Row {
      bars = List.copyOf(bars);
      if (bars.isEmpty()) {
        throw new IllegalArgumentException("row '" + label + "' needs at least one bar");
      }
    }
  }

  private final String title;
  private final String axisLabel;
  private final String valueFormat;
  private final List<Series> series;
  private final List<Row> rows;

  /**
   * @param title the heading drawn at the top
   * @param axisLabel the value axis' label, with its unit (e.g. "messages per second")
   * @param valueFormat the {@link String#format} pattern of the number printed after each bar, e.g. {@code "%,.0f"}
   * @param series the kinds of bar, in legend order
   * @param rows the rows, top to bottom; at least one
   * @throws IllegalArgumentException if there are no rows or a bar names a series that does not exist
   */
  SvgBarChart(String title, String axisLabel, String valueFormat, List<Series> series, List<Row> rows) {
    this.title = title;
    this.axisLabel = axisLabel;
    this.valueFormat = valueFormat;
    this.series = List.copyOf(series);
    this.rows = List.copyOf(rows);
    if (rows.isEmpty()) {
      throw new IllegalArgumentException("chart '" + title + "' needs at least one row");
    }
    for (Row row : rows) {
      for (Bar bar : row.bars()) {
        if (bar.series() < 0 || bar.series() >= series.size()) {
          throw new IllegalArgumentException("bar of row '" + row.label() + "' names series " + bar.series()
              + "; the chart has " + series.size());
        }
      }
    }
  }

  /** @return the end of the value axis: a round number at or above every bar and range */
  double axisMax() {
    double largest = rows.stream().flatMap(row -> row.bars().stream()).mapToDouble(Bar::end).max().orElse(0);
    double step = tickStep(largest);
    return Math.max(step, Math.ceil(largest / step) * step);
  }

  /** @return a step of 1, 2 or 5 times a power of ten that cuts {@code largest} into about five ticks */
  static double tickStep(double largest) {
    if (!(largest > 0)) {
      return 1;
    }
    double rough = largest / 5;
    double power = Math.pow(10, Math.floor(Math.log10(rough)));
    double fraction = rough / power;
    return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
  }

  /** @return the width of the plotting area, from {@link #LEFT} */
  static double plotWidth() {
    return WIDTH - LEFT - RIGHT;
  }

  /** @return the complete SVG document */
  String svg() {
    double axisMax = axisMax();
    double step = tickStep(axisMax);
    int plotTop = TITLE_HEIGHT + LEGEND_HEIGHT;
    int plotHeight = 0;
    for (Row row : rows) {
      plotHeight += wrap(row.label()).size() * LABEL_HEIGHT + row.bars().size() * (BAR_HEIGHT + BAR_GAP) + ROW_GAP;
    }
    int height = plotTop + plotHeight + AXIS_HEIGHT;
    StringBuilder out = new StringBuilder();
    out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.append(format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
        + " role=\"img\" aria-label=\"%s\">\n", WIDTH, height, WIDTH, height, escape(title)));
    out.append(format("<title>%s</title>\n", escape(title)));
    out.append(format("<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", WIDTH, height));
    out.append(format("<text class=\"title\" x=\"%d\" y=\"20\" %s font-size=\"15\" font-weight=\"bold\""
        + " fill=\"#000000\">%s</text>\n", LEFT, FONT, escape(title)));
    legend(out);
    // Gridlines and tick labels first, so the bars are drawn over them.
    long ticks = Math.round(axisMax / step);
    for (long i = 0; i <= ticks; i++) {
      double tick = i * step;
      double x = x(tick, axisMax);
      out.append(format("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1\"/>\n", x,
          plotTop, x, plotTop + plotHeight, tick == 0 ? "#000000" : "#d9d9d9"));
      out.append(format("<text class=\"tick\" x=\"%.1f\" y=\"%d\" %s font-size=\"12\" fill=\"#000000\""
          + " text-anchor=\"middle\">%s</text>\n", x, plotTop + plotHeight + 16, FONT, escape(tickLabel(tick, step))));
    }
    out.append(format("<text class=\"axis-label\" x=\"%.1f\" y=\"%d\" %s font-size=\"13\" fill=\"#000000\""
        + " text-anchor=\"middle\">%s</text>\n", LEFT + plotWidth() / 2, plotTop + plotHeight + 38, FONT,
        escape(axisLabel)));
    int y = plotTop;
    for (Row row : rows) {
      List<String> lines = wrap(row.label());
      out.append(format("<text class=\"label\" x=\"%d\" y=\"%d\" %s font-size=\"13\" fill=\"#000000\">", LEFT + 4,
          y + LABEL_HEIGHT - 5, FONT));
      for (int i = 0; i < lines.size(); i++) {
        out.append(format("<tspan x=\"%d\" dy=\"%d\">%s</tspan>", LEFT + 4, i == 0 ? 0 : LABEL_HEIGHT,
            escape(lines.get(i))));
      }
      out.append("</text>\n");
      y += lines.size() * LABEL_HEIGHT;
      for (Bar bar : row.bars()) {
        bar(out, row, bar, y, axisMax);
        y += BAR_HEIGHT + BAR_GAP;
      }
      y += ROW_GAP;
    }
    out.append("</svg>\n");
    return out.toString();
  }

  /** Draws the series that have a bar in this chart, in the order given. */
  private void legend(StringBuilder out) {
    double x = LEFT;
    int y = TITLE_HEIGHT + 4;
    for (int index = 0; index < series.size(); index++) {
      int wanted = index;
      if (rows.stream().flatMap(row -> row.bars().stream()).noneMatch(bar -> bar.series() == wanted)) {
        continue;
      }
      Series one = series.get(index);
      out.append(format("<rect x=\"%.1f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, y, one.colour()));
      out.append(format("<text class=\"legend\" x=\"%.1f\" y=\"%d\" %s font-size=\"12\" fill=\"#000000\">%s</text>\n",
          x + 16, y + 11, FONT, escape(one.name())));
      x += 16 + one.name().length() * 7 + 18;
    }
  }

  private void bar(StringBuilder out, Row row, Bar bar, int y, double axisMax) {
    Series kind = series.get(bar.series());
    String value = format(valueFormat, bar.value());
    String range = bar.hasRange() ? format(" (runs " + valueFormat + "–" + valueFormat + ")", bar.min(), bar.max())
        : "";
    out.append(format("<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
        + "<title>%s</title></rect>\n", LEFT, y, x(bar.value(), axisMax) - LEFT, BAR_HEIGHT, kind.colour(),
        escape(row.label() + ", " + kind.name() + ": " + value + range)));
    double middle = y + BAR_HEIGHT / 2.0;
    if (bar.hasRange()) {
      double low = x(bar.min(), axisMax);
      double high = x(bar.max(), axisMax);
      out.append(format("<g class=\"range\" stroke=\"#000000\" stroke-width=\"1.5\">"
          + "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
          + "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
          + "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/></g>\n", low, middle, high, middle,
          low, y + 3, low, y + BAR_HEIGHT - 3, high, y + 3, high, y + BAR_HEIGHT - 3));
    }
    out.append(format("<text class=\"value\" x=\"%.1f\" y=\"%.1f\" %s font-size=\"12\" fill=\"#000000\">%s</text>\n",
        x(bar.end(), axisMax) + 5, middle + 4, FONT, escape(value)));
  }

  /**
   * @return the label cut at spaces into lines of at most {@link #LABEL_CHARACTERS} characters (a longer word keeps
   *     its own line); every line but the last keeps its trailing space, so the lines joined give the label back
   */
  static List<String> wrap(String label) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : label.split("(?<= )")) {
      if (line.length() > 0 && line.length() + word.stripTrailing().length() > LABEL_CHARACTERS) {
        lines.add(line.toString());
        line.setLength(0);
      }
      line.append(word);
    }
    lines.add(line.toString());
    return lines;
  }

  private static double x(double value, double axisMax) {
    return LEFT + value / axisMax * plotWidth();
  }

  static String tickLabel(double tick, double step) {
    return step >= 1 ? format("%,.0f", tick) : format("%,." + (int) Math.ceil(-Math.log10(step)) + "f", tick);
  }

  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  private static String format(String pattern, Object... args) {
    return String.format(Locale.ROOT, pattern, args);
  }
}
