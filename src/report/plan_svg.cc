#include "dmo/report/plan_svg.h"

#include <fmt/format.h>

#include <algorithm>

namespace dmo {

namespace {

constexpr double kPanelWidth = 560, kPanelHeight = 520, kMargin = 60, kGap = 80;

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string panel(const Graph& graph, const PlanResult& r, const Plan& plan, const std::string& title, double x0,
                  int64_t max_bytes) {
  const Subgraph& sg = graph.main();
  const double ops = std::max<double>(1, static_cast<double>(sg.ops.size()));
  const double col = kPanelWidth / ops;
  auto y = [&](int64_t address) {
    return kMargin + kPanelHeight - kPanelHeight * static_cast<double>(address) / static_cast<double>(max_bytes);
  };
  std::string out = fmt::format(
      "<g><text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"15\" font-weight=\"bold\">{}: {} bytes</text>\n", x0,
      kMargin - 22, escape(title), plan.arena_size);
  out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#fafafa\" "
                     "stroke=\"#999\"/>\n",
                     x0, kMargin, kPanelWidth, kPanelHeight);
  out += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#c00\" "
                     "stroke-dasharray=\"6 4\"/>\n",
                     x0, x0 + kPanelWidth, y(plan.arena_size));
  for (size_t b = 0; b < r.problem.buffers.size(); ++b) {
    const BufferRequest& buf = r.problem.buffers[b];
    if (buf.lifetime.last < 0 || buf.size == 0 || buf.tensor == kNoTensor) continue;
    int32_t first = std::max(buf.lifetime.first, 0);
    double left = x0 + col * first, width = col * (buf.lifetime.last - first + 1);
    double top = y(plan.offsets[b] + buf.size), height = y(plan.offsets[b]) - top;
    int hue = static_cast<int>((buf.tensor * 137) % 360);
    const Tensor& t = sg.tensors[static_cast<size_t>(buf.tensor)];
    out += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"hsl({},65%,60%)\" "
        "fill-opacity=\"0.65\" stroke=\"hsl({},65%,30%)\" stroke-width=\"0.6\"><title>tensor {} '{}' {} bytes at "
        "{}, ops {}..{}</title></rect>\n",
        left, top, std::max(width, 0.5), std::max(height, 0.5), hue, hue, buf.tensor, escape(t.name), buf.size,
        plan.offsets[b], buf.lifetime.first, buf.lifetime.last);
  }
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\">op index →</text>\n", x0 + kPanelWidth / 2 - 30,
                     kMargin + kPanelHeight + 20);
  out += "</g>\n";
  return out;
}

}  // namespace

std::string plan_svg(const Graph& graph, const PlanResult& r) {
  int64_t max_bytes = std::max<int64_t>({r.tflm_greedy.arena_size, r.dmo.arena_size, 1});
  double width = 2 * kPanelWidth + kGap + 2 * kMargin, height = kPanelHeight + 2 * kMargin + 20;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" font-family=\"sans-serif\">\n",
      width, height);
  out += fmt::format("<text x=\"{:.1f}\" y=\"20\" font-size=\"13\">{}: tensor arena over time (address up, "
                     "dashed line = arena size; hover a block for its tensor)</text>\n",
                     kMargin, escape(graph.source));
  out += fmt::format("<text x=\"12\" y=\"{:.1f}\" font-size=\"12\" transform=\"rotate(-90 12 {:.1f})\">address "
                     "(0 .. {} bytes)</text>\n",
                     kMargin + kPanelHeight / 2 + 60, kMargin + kPanelHeight / 2 + 60, max_bytes);
  out += panel(graph, r, r.tflm_greedy, "TFLM greedy", kMargin, max_bytes);
  out += panel(graph, r, r.dmo, fmt::format("dmo ({} overlap)", overlap_method_name(r.method)),
               kMargin + kPanelWidth + kGap, max_bytes);
  out += "</svg>\n";
  return out;
}

}  // namespace dmo
