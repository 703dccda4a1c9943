#include "dmo/trace/access_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace dmo {

namespace {

constexpr double kWidth = 960, kHeight = 620;
constexpr double kLeft = 90, kRight = 30, kTop = 78, kBottom = 92;
constexpr const char* kReadColour = "#1f77b4";
constexpr const char* kWriteColour = "#d62728";
constexpr const char* kShiftedColour = "#ff7f0e";
constexpr const char* kReadFrontierColour = "#0b3d6b";
constexpr const char* kWriteFrontierColour = "#7a0c0c";

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Round tick positions (1, 2 or 5 times a power of ten) covering [lo, hi].
std::vector<double> ticks(double lo, double hi) {
  double span = std::max(hi - lo, 1.0);
  double raw = span / 6;
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  }
  step = std::max(step, 1.0);
  std::vector<double> out;
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push_back(v);
  return out;
}

std::string tick_label(double v) {
  if (std::abs(v) < 1e-9) return "0";
  double a = std::abs(v);
  if (a >= 1e9) return fmt::format("{:g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v);
}

struct Scale {
  double x_max, y_min, y_max;
  double x(double t) const { return kLeft + t / x_max * (kWidth - kLeft - kRight); }
  double y(double offset) const { return kTop + (y_max - offset) / (y_max - y_min) * (kHeight - kTop - kBottom); }
};

// A step line through (bin start, value) for the bins where value is set.
std::string step_path(const Scale& s, const std::vector<int64_t>& values, int64_t none, int64_t bin_width,
                      int64_t shift) {
  std::string d;
  bool drawing = false;
  for (size_t k = 0; k < values.size(); ++k) {
    if (values[k] == none) {
      drawing = false;
      continue;
    }
    double x0 = s.x(static_cast<double>(k) * static_cast<double>(bin_width));
    double x1 = s.x(static_cast<double>(k + 1) * static_cast<double>(bin_width));
    double y = s.y(static_cast<double>(values[k] - shift));
    d += fmt::format("{}{:.1f} {:.1f}H{:.1f}", drawing ? "L" : "M", x0, y, x1);
    drawing = true;
  }
  return d;
}

std::string dots(const Scale& s, const std::vector<AccessPoint>& points, const char* colour, double size) {
  std::string d;
  d.reserve(points.size() * 14);
  for (const auto& p : points) {
    d += fmt::format("M{:.1f} {:.1f}h0", s.x(static_cast<double>(p.time)), s.y(static_cast<double>(p.offset)));
  }
  return fmt::format(
      "<path d=\"{}\" stroke=\"{}\" stroke-width=\"{}\" stroke-linecap=\"round\" "
      "stroke-opacity=\"0.6\" fill=\"none\"/>\n",
      d, colour, size);
}

}  // namespace

std::string access_picture_svg(const AccessPicture& p, const AccessPictureOptions& options) {
  const bool descending = options.descending_safe_overlap.has_value();
  // Ascending, the output sits `gap` bytes below the input's start; descending, `lift` bytes above it.
  const int64_t gap = descending ? 0 : p.output_bytes - p.safe_overlap;
  const int64_t lift = descending ? std::max<int64_t>(p.input_bytes - *options.descending_safe_overlap, 0) : 0;
  Scale s;
  s.x_max = static_cast<double>(std::max<int64_t>(p.instructions, 1));
  s.y_min = gap > 0 ? -static_cast<double>(gap) : 0.0;
  s.y_max = static_cast<double>(std::max<int64_t>({p.input_bytes, p.output_bytes, lift + p.output_bytes, 1}));

  // Frontiers per bin: highest write so far, lowest read from then on.
  std::vector<int64_t> max_write(p.bins.size(), -1), min_read_after(p.bins.size(), AccessBin::kNoRead);
  int64_t running = -1;
  for (size_t k = 0; k < p.bins.size(); ++k) {
    running = std::max(running, p.bins[k].max_write);
    max_write[k] = running;
  }
  int64_t lowest = AccessBin::kNoRead;
  for (size_t k = p.bins.size(); k-- > 0;) {
    lowest = std::min(lowest, p.bins[k].min_read);
    min_read_after[k] = lowest;
  }

  std::string svg;
  svg += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      kWidth, kHeight);
  svg +=
      fmt::format("<text x=\"{}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>\n", kLeft, escape(p.name));
  if (descending) {
    svg += fmt::format(
        "<text x=\"{}\" y=\"44\" font-size=\"14\">walking descending: O_s desc. = {} of {} input bytes; the output "
        "may start {} bytes above the input</text>\n",
        kLeft, *options.descending_safe_overlap, p.input_bytes, lift);
  } else {
    svg += fmt::format(
        "<text x=\"{}\" y=\"44\" font-size=\"14\">O_s = {} of {} output bytes (input {} bytes): the output may "
        "start {} bytes below the input</text>\n",
        kLeft, p.safe_overlap, p.output_bytes, p.input_bytes, gap);
  }
  svg += fmt::format(
      "<text x=\"{}\" y=\"62\" fill=\"#555\">{} reads of the input, {} writes of the {}-byte output over {} "
      "instructions (dots: a sample of {} and {})</text>\n",
      kLeft, p.reads, p.writes, p.output_bytes, p.instructions, p.read_points.size(), p.write_points.size());

  // Axes and grid.
  const double plot_bottom = kHeight - kBottom, plot_right = kWidth - kRight;
  for (double v : ticks(0, s.x_max)) {
    double x = s.x(v);
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#eee\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        x, kTop, plot_bottom, plot_bottom + 16, tick_label(v));
  }
  for (double v : ticks(s.y_min, s.y_max)) {
    double y = s.y(v);
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#eee\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        kLeft, y, plot_right, kLeft - 6, y + 4, tick_label(v));
  }
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>\n", kLeft,
                     kTop, plot_right - kLeft, plot_bottom - kTop);
  if (s.y_min < 0) {
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#999\"/>\n", kLeft, s.y(0),
                       plot_right);
  }
  svg +=
      fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">time (instructions since the layer began)</text>\n",
                  (kLeft + plot_right) / 2, plot_bottom + 34);
  svg += fmt::format(
      "<text transform=\"translate(22 {}) rotate(-90)\" text-anchor=\"middle\">byte offset in its buffer</text>\n",
      (kTop + plot_bottom) / 2);

  // Frontiers under the dots, so the accesses stay visible where they meet.
  // They decide the ascending O_s; a descending walk is shown by its placed writes.
  if (!descending) {
    svg += fmt::format("<path d=\"{}\" stroke=\"{}\" stroke-width=\"2\" stroke-opacity=\"0.75\" fill=\"none\"/>\n",
                       step_path(s, min_read_after, AccessBin::kNoRead, p.bin_width, 0), kReadFrontierColour);
    svg += fmt::format("<path d=\"{}\" stroke=\"{}\" stroke-width=\"2\" stroke-opacity=\"0.75\" fill=\"none\"/>\n",
                       step_path(s, max_write, -1, p.bin_width, 0), kWriteFrontierColour);
  }
  if (gap > 0) {
    svg += fmt::format("<path d=\"{}\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"6 4\" fill=\"none\"/>\n",
                       step_path(s, max_write, -1, p.bin_width, gap), kShiftedColour);
  }
  svg += dots(s, p.read_points, kReadColour, 3.2);
  svg += dots(s, p.write_points, kWriteColour, 1.8);
  if (lift > 0) {
    // Where the descending placement puts each sampled write, in the input's
    // offsets: every one lands above the input bytes still to be read.
    std::vector<AccessPoint> placed = p.write_points;
    for (auto& point : placed) point.offset += lift;
    svg += dots(s, placed, kShiftedColour, 2.6);
  }

  // Legend below the axis title.
  double ly = plot_bottom + 56;
  struct Entry {
    const char* colour;
    const char* dash;
    bool dot;
    std::string text;
  };
  std::vector<Entry> entries = {
      {kReadColour, "", true, "read (input offset)"},
      {kWriteColour, "", true, "write (output offset)"},
  };
  if (!descending) {
    entries.push_back({kReadFrontierColour, "", false, "minR: lowest input byte read from then on"});
    entries.push_back({kWriteFrontierColour, "", false, "maxW: highest output byte written so far"});
  }
  if (gap > 0) entries.push_back({kShiftedColour, "6 4", false, fmt::format("maxW - {} (output placed for O_s)", gap)});
  if (lift > 0) {
    entries.push_back({kShiftedColour, "", true, fmt::format("write + {} (output placed for O_s desc.)", lift)});
  }
  double lx = kLeft;
  for (const auto& e : entries) {
    const double width = 26 + 5.8 * static_cast<double>(e.text.size());
    if (lx + width > plot_right && lx > kLeft) {
      lx = kLeft;
      ly += 17;
    }
    if (e.dot) {
      svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>", lx + 8, ly - 4, e.colour);
    } else {
      svg += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\" "
          "stroke-dasharray=\"{}\"/>",
          lx, ly - 4, lx + 18, ly - 4, e.colour, e.dash);
    }
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{}</text>\n", lx + 22, ly, escape(e.text));
    lx += width;
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace dmo
