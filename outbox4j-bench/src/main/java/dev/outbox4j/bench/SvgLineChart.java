package dev.outbox4j.bench;

import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A line chart of series over time, written as a plain SVG document in the style of {@link SvgBarChart} (same width,
 * fonts, gridlines, title and legend; no script, no external style). Both axes start at zero and end at a round number
 * ({@link SvgBarChart#tickStep}); a shaded band may mark an interval of the x axis (the time a transaction was held
 * open). A point whose value is NaN (nothing was measured in that interval) is left out; the line joins its neighbours.
 *
 * <p>Immutable; {@link #svg()} may be called from any thread.
 */
final class SvgLineChart {
  static final int WIDTH = SvgBarChart.WIDTH;
  static final int LEFT = 72;
  static final int RIGHT = 24;
  /** The top of the plot under a legend of one row; each further row of the legend moves it down by this much. */
  static final int TOP = 60;
  static final int LEGEND_ROW = 18;
  static final int PLOT_HEIGHT = 260;
  private static final int AXIS_HEIGHT = 48;
  private static final String FONT = "font-family=\"Helvetica, Arial, sans-serif\"";

  /** One point: {@code y} may be NaN (left out). */
  record Point(double x, double y) {}

  /**
   * One line.
   *
   * @param name the legend text
   * @param colour a CSS colour
   * @param dashed whether the line is drawn dashed (to tell apart more lines than there are colours)
   * @param points in x order
   */
  record Line(String name, String colour, boolean dashed, List<Point> points) {
    Line {
      points = List.copyOf(points);
    }

    Line(String name, String colour, List<Point> points) {
      this(name, colour, false, points);
    }
  }

  /** A shaded interval of the x axis, labelled. */
  record Band(double from, double until, String label) {
    Band {
      if (!(from <= until)) {
        throw new IllegalArgumentException("band must run forwards, was " + from + "–" + until);
      }
    }
  }

  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final List<Line> lines;
  private final @Nullable Band band;

  /**
   * @param title the heading
   * @param xLabel the x axis' label, with its unit
   * @param yLabel the y axis' label, with its unit
   * @param lines at least one
   * @param band the shaded interval, or {@code null}
   * @throws IllegalArgumentException if there is no line, or a point is negative or infinite
   */
  SvgLineChart(String title, String xLabel, String yLabel, List<Line> lines, @Nullable Band band) {
    this.title = title;
    this.xLabel = xLabel;
    this.yLabel = yLabel;
    this.lines = List.copyOf(lines);
    this.band = band;
    if (lines.isEmpty()) {
      throw new IllegalArgumentException("chart '" + title + "' needs at least one line");
    }
    for (Line line : lines) {
      for (Point point : line.points()) {
        if (!(point.x() >= 0) || Double.isInfinite(point.x())
            || (!Double.isNaN(point.y()) && (point.y() < 0 || Double.isInfinite(point.y())))) {
          throw new IllegalArgumentException("line '" + line.name() + "' has a point off the axes: " + point);
        }
      }
    }
  }

  /** @return the end of the x axis: a round number at or after every point and the band */
  double xMax() {
    double largest = lines.stream().flatMap(line -> line.points().stream()).mapToDouble(Point::x).max().orElse(0);
    return roundUp(band == null ? largest : Math.max(largest, band.until()));
  }

  /** @return the end of the y axis: a round number at or above every point */
  double yMax() {
    return roundUp(lines.stream().flatMap(line -> line.points().stream()).mapToDouble(Point::y)
        .filter(y -> !Double.isNaN(y)).max().orElse(0));
  }

  static double plotWidth() {
    return WIDTH - LEFT - RIGHT;
  }

  /** @return the horizontal position of {@code x} on an axis ending at {@code xMax} */
  static double x(double x, double xMax) {
    return LEFT + x / xMax * plotWidth();
  }

  /** @return the vertical position of {@code y} on an axis ending at {@code yMax} */
  double y(double y, double yMax) {
    return top() + PLOT_HEIGHT - y / yMax * PLOT_HEIGHT;
  }

  /** @return the top of the plot: below the legend's rows */
  int top() {
    return TOP + (legendRows() - 1) * LEGEND_ROW;
  }

  /** @return the rows the legend takes: entries are laid left to right and wrap before the right margin */
  int legendRows() {
    int rows = 1;
    double x = 16;
    for (Line line : lines) {
      double width = legendWidth(line);
      if (x > 16 && x + width > WIDTH - RIGHT) {
        rows++;
        x = 16;
      }
      x += width;
    }
    return rows;
  }

  private static double legendWidth(Line line) {
    return 16 + line.name().length() * 7 + 18;
  }

  /** @return the complete SVG document */
  String svg() {
    double xMax = xMax();
    double yMax = yMax();
    int top = top();
    int height = top + PLOT_HEIGHT + AXIS_HEIGHT;
    StringBuilder out = new StringBuilder();
    out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.append(format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
        + " role=\"img\" aria-label=\"%s\">\n", WIDTH, height, WIDTH, height, SvgBarChart.escape(title)));
    out.append(format("<title>%s</title>\n", SvgBarChart.escape(title)));
    out.append(format("<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", WIDTH, height));
    out.append(format("<text class=\"title\" x=\"%d\" y=\"20\" %s font-size=\"15\" font-weight=\"bold\""
        + " fill=\"#000000\">%s</text>\n", 16, FONT, SvgBarChart.escape(title)));
    legend(out);
    if (band != null) {
      double from = x(band.from(), xMax);
      out.append(format("<rect class=\"band\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#f0e442\""
          + " fill-opacity=\"0.25\"><title>%s</title></rect>\n", from, top, x(band.until(), xMax) - from, PLOT_HEIGHT,
          SvgBarChart.escape(band.label())));
      out.append(format("<text class=\"band-label\" x=\"%.1f\" y=\"%d\" %s font-size=\"11\" fill=\"#000000\">"
          + "%s</text>\n",
          from + 4, top + 12, FONT, SvgBarChart.escape(band.label())));
    }
    double yStep = SvgBarChart.tickStep(yMax);
    for (long i = 0; i <= Math.round(yMax / yStep); i++) {
      double tick = i * yStep;
      double at = y(tick, yMax);
      out.append(format("<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>\n",
          LEFT, at, LEFT + plotWidth(), at, tick == 0 ? "#000000" : "#d9d9d9"));
      out.append(format("<text class=\"y-tick\" x=\"%d\" y=\"%.1f\" %s font-size=\"12\" fill=\"#000000\""
          + " text-anchor=\"end\">%s</text>\n", LEFT - 6, at + 4, FONT,
          SvgBarChart.escape(SvgBarChart.tickLabel(tick, yStep))));
    }
    double xStep = SvgBarChart.tickStep(xMax);
    for (long i = 0; i <= Math.round(xMax / xStep); i++) {
      double tick = i * xStep;
      double at = x(tick, xMax);
      out.append(format("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1\"/>\n", at,
          top, at, top + PLOT_HEIGHT, tick == 0 ? "#000000" : "#d9d9d9"));
      out.append(format("<text class=\"x-tick\" x=\"%.1f\" y=\"%d\" %s font-size=\"12\" fill=\"#000000\""
          + " text-anchor=\"middle\">%s</text>\n", at, top + PLOT_HEIGHT + 16, FONT,
          SvgBarChart.escape(SvgBarChart.tickLabel(tick, xStep))));
    }
    out.append(format("<text class=\"x-label\" x=\"%.1f\" y=\"%d\" %s font-size=\"13\" fill=\"#000000\""
        + " text-anchor=\"middle\">%s</text>\n", LEFT + plotWidth() / 2, top + PLOT_HEIGHT + 38, FONT,
        SvgBarChart.escape(xLabel)));
    out.append(format("<text class=\"y-label\" x=\"%d\" y=\"%d\" %s font-size=\"13\" fill=\"#000000\""
        + " text-anchor=\"middle\" transform=\"rotate(-90 %d %d)\">%s</text>\n", 16, top + PLOT_HEIGHT / 2, FONT, 16,
        top + PLOT_HEIGHT / 2, SvgBarChart.escape(yLabel)));
    for (Line line : lines) {
      StringBuilder points = new StringBuilder();
      for (Point point : line.points()) {
        if (!Double.isNaN(point.y())) {
          points.append(points.length() == 0 ? "" : " ")
              .append(format("%.1f,%.1f", x(point.x(), xMax), y(point.y(), yMax)));
        }
      }
      out.append(format("<polyline class=\"line\" points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s>"
          + "<title>%s</title></polyline>\n", points, line.colour(), line.dashed() ? " stroke-dasharray=\"6 3\"" : "",
          SvgBarChart.escape(line.name())));
    }
    out.append("</svg>\n");
    return out.toString();
  }

  private void legend(StringBuilder out) {
    double x = 16;
    int y = 34;
    for (Line line : lines) {
      double width = legendWidth(line);
      if (x > 16 && x + width > WIDTH - RIGHT) {
        y += LEGEND_ROW;
        x = 16;
      }
      if (line.dashed()) {
        out.append(format("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\""
            + " stroke-dasharray=\"4 2\"/>\n", x, y + 6, x + 12, y + 6, line.colour()));
      } else {
        out.append(format("<rect x=\"%.1f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, y,
            line.colour()));
      }
      out.append(format("<text class=\"legend\" x=\"%.1f\" y=\"%d\" %s font-size=\"12\" fill=\"#000000\">%s</text>\n",
          x + 16, y + 11, FONT, SvgBarChart.escape(line.name())));
      x += width;
    }
  }

  private static double roundUp(double largest) {
    double step = SvgBarChart.tickStep(largest);
    return Math.max(step, Math.ceil(largest / step) * step);
  }

  private static String format(String pattern, Object... args) {
    return String.format(Locale.ROOT, pattern, args);
  }
}
