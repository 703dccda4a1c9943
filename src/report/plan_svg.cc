#include "dmo/report/plan_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "dmo/model/model_timeline.h"
#include "dmo/report/grouped_number.h"
#include "dmo/report/split_report.h"

namespace dmo {

namespace {

constexpr double kPanelWidth = 580, kPanelHeight = 520, kLeft = 84, kGap = 100, kRight = 30, kTop = 112;
constexpr double kMinTensorPixels = 2;  // a tiny tensor still shows as a line
constexpr const char* kHatch = "url(#shared-bytes)";

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

// A round step (1, 2 or 5 times a power of ten) giving at most `most` ticks over `span`.
int64_t round_step(double span, int most) {
  const double raw = std::max(span / most, 1.0);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) return static_cast<int64_t>(m * power);
  }
  return static_cast<int64_t>(10 * power);
}

// Where one panel draws: time i takes column i, address 0 is at the bottom.
// A time is an op's index, or with split stages a step of the schedule,
// where op_times gives each op's first step.
struct Frame {
  double x0;
  int32_t ops;
  int64_t max_bytes;
  bool steps = false;
  std::vector<int32_t> op_times = {};
  int32_t time_of(int32_t op) const {
    return static_cast<size_t>(op) < op_times.size() ? op_times[static_cast<size_t>(op)] : op;
  }
  double column() const { return kPanelWidth / std::max(ops, 1); }
  double x(double op) const { return x0 + column() * op; }
  double y(int64_t address) const {
    return kTop + kPanelHeight - kPanelHeight * static_cast<double>(address) / static_cast<double>(max_bytes);
  }
};

// How a buffer's first and last columns are drawn: slanted where an op's
// output shares bytes with the input dying at that op, so the picture shows
// the input being read away while the output is written in its place.
struct Slants {
  bool output_slanted = false, output_descending = false;  // first column
  bool input_slanted = false, input_descending = false;    // last column
};

struct SharedBand {
  int32_t op;
  int64_t low, high;  // the addresses both tensors use at that op
  int32_t input_tensor, output_tensor;
  bool descending;
  int32_t time;  // the op's column: its step with split stages
  int32_t last_time;  // a split stage's band spans its steps, from the output's first to the input's last
  std::string who;    // "op N" or "split stage ops F-L"
};

struct Overlaps {
  std::vector<Slants> slants;  // per buffer
  std::vector<SharedBand> bands;
};

// Overlap pairs and descending walks name ops; lifetimes, times.
Overlaps overlaps_in(const MemoryProblem& problem, const Plan& plan, const Frame& f, const Schedule& schedule) {
  Overlaps out;
  out.slants.resize(problem.buffers.size());
  const std::set<int32_t> descending(plan.descending_ops.begin(), plan.descending_ops.end());
  for (const OverlapPair& pair : problem.overlaps) {
    const auto in = static_cast<size_t>(pair.input_buffer), o = static_cast<size_t>(pair.output_buffer);
    const BufferRequest &input = problem.buffers[in], &output = problem.buffers[o];
    const int64_t low = std::max(plan.offsets[in], plan.offsets[o]);
    const int64_t high = std::min(plan.offsets[in] + input.size, plan.offsets[o] + output.size);
    // A split stage's pair (its ops' own go unused): the stage writes its
    // output over its input tile by tile, so the shared bytes span its steps.
    if (const SplitStage* stage = split_stage_of(schedule, pair.op)) {
      if (low >= high) continue;
      out.bands.push_back({pair.op, low, high, input.tensor, output.tensor, false, std::max(output.lifetime.first, 0),
                           input.lifetime.last, fmt::format("split stage ops {}-{}", stage->first_op, stage->last_op)});
      continue;
    }
    const int32_t time = f.time_of(pair.op);
    if (low >= high || input.lifetime.last != time || std::max(output.lifetime.first, 0) != time) continue;
    const bool down = descending.count(pair.op) > 0;
    out.slants[o].output_slanted = true;
    out.slants[o].output_descending = down;
    out.slants[in].input_slanted = true;
    out.slants[in].input_descending = down;
    out.bands.push_back({pair.op, low, high, input.tensor, output.tensor, down, time, time, fmt::format("op {}", pair.op)});
  }
  return out;
}

// The outline of one buffer: its bottom edge left to right, then its top
// edge right to left, with the slanted columns cut diagonally.
std::string outline(const Frame& f, int32_t first, int32_t last, int64_t low, int64_t high, const Slants& s) {
  const double left = f.x(first), right = f.x(last + 1), column = f.column();
  const double bottom = f.y(low), top = std::min(f.y(high), bottom - kMinTensorPixels);
  std::vector<std::pair<double, double>> lower, upper;
  if (s.output_slanted && s.output_descending) {
    lower = {{left, top}, {left + column, bottom}};  // written from the top down
  } else {
    lower = {{left, bottom}};
  }
  if (s.input_slanted && !s.input_descending) {
    lower.insert(lower.end(), {{right - column, bottom}, {right, top}});  // read away from the bottom up
  } else {
    lower.push_back({right, bottom});
  }
  if (s.input_slanted && s.input_descending) {
    upper = {{right, bottom}, {right - column, top}};  // read away from the top down
  } else {
    upper = {{right, top}};
  }
  if (s.output_slanted && !s.output_descending) {
    upper.insert(upper.end(), {{left + column, top}, {left, bottom}});  // written from the bottom up
  } else {
    upper.push_back({left, top});
  }
  std::string points;
  // A buffer one op long that is both slanted output and slanted input
  // cannot be cut twice in one column: it keeps its output's cut.
  if (s.output_slanted && s.input_slanted && first == last) {
    Slants output_only = s;
    output_only.input_slanted = false;
    return outline(f, first, last, low, high, output_only);
  }
  for (const auto& edge : {lower, upper}) {
    for (const auto& [x, y] : edge) points += fmt::format("{:.1f},{:.1f} ", x, y);
  }
  points.pop_back();
  return points;
}

std::string axes(const Frame& f, const std::set<int32_t>& descending, int32_t peak_op, int64_t peak_bytes) {
  std::string out;
  const double bottom = kTop + kPanelHeight;
  // Byte ticks with a faint grid behind the tensors.
  const int64_t byte_step = round_step(static_cast<double>(f.max_bytes), 8);
  for (int64_t b = 0; b <= f.max_bytes; b += byte_step) {
    out += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#e4e4e4\"/>"
        "<text x=\"{3:.1f}\" y=\"{4:.1f}\" font-size=\"10\" text-anchor=\"end\">{5}</text>\n",
        f.x0 - 4, f.x0 + kPanelWidth, f.y(b), f.x0 - 7, f.y(b) + 3.5, grouped(b));
  }
  // Op ticks at column centres.
  const int64_t op_step = round_step(f.ops, 14);
  for (int32_t op = 0; op < f.ops; ++op) {
    const double x = f.x(op + 0.5);
    // The last op is labelled too unless it would crowd the label before it.
    const bool labelled = op % op_step == 0 || (op == f.ops - 1 && op % op_step > op_step / 2);
    out += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#666\"/>", x, bottom,
                       bottom + (labelled ? 5 : 3));
    if (labelled) {
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"middle\">{}</text>", x,
                         bottom + 16, op);
    }
    out += '\n';
  }
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" text-anchor=\"middle\">{} (time) →</text>\n",
                     f.x0 + kPanelWidth / 2, bottom + 32, f.steps ? "schedule step" : "op index");
  out += fmt::format(
      "<text transform=\"translate({:.1f} {:.1f}) rotate(-90)\" font-size=\"12\" text-anchor=\"middle\">arena "
      "address (bytes) →</text>\n",
      f.x0 - 66, kTop + kPanelHeight / 2);
  // The peak op: a band behind the tensors and its label above the panel.
  if (peak_op >= 0 && peak_op < f.ops) {
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#ffe680\" fill-opacity=\"0.55\"/>"
        // Kept whole inside the panel: the label is about 180 px wide.
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#7a5c00\">peak {} {}: {} "
        "bytes live</text>\n",
        f.x(peak_op), kTop, f.column(), kPanelHeight, std::clamp(f.x(peak_op + 0.5), f.x0 + 95, f.x0 + kPanelWidth - 95),
        kTop - 18, f.steps ? "step" : "op", peak_op, grouped(peak_bytes));
  }
  for (int32_t op : descending) {
    const double x = f.x(f.time_of(op) + 0.5);
    out += fmt::format(
        "<path d=\"M{:.1f} {:.1f}l-4 -7h8z\" fill=\"#1f4e9c\"><title>op {} walks its output descending</title>"
        "</path>\n",
        x, kTop - 2, op);
  }
  return out;
}

// `peak_time`: the time of most live bytes in this panel's problem, or -1.
std::string panel(const Graph& graph, const MemoryProblem& problem, const Plan& plan, const std::string& title,
                  const Frame& f, const PlanResult& r, int32_t peak_time) {
  const std::set<int32_t> descending(plan.descending_ops.begin(), plan.descending_ops.end());
  const Overlaps overlaps = overlaps_in(problem, plan, f, r.schedule);
  std::set<int32_t> views;
  for (const BufferAlias& alias : problem.aliases) views.insert(alias.buffer);

  std::string out = "<g>\n";
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"15\" font-weight=\"bold\">{}: {} bytes</text>\n",
                     f.x0, kTop - 50, escape(title), grouped(plan.arena_size));
  out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#fcfcfc\"/>\n", f.x0, kTop,
                     kPanelWidth, kPanelHeight);
  out += axes(f, descending, peak_time, peak_time >= 0 ? r.live_bytes[static_cast<size_t>(peak_time)] : int64_t{0});

  std::string labels;
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    const BufferRequest& buf = problem.buffers[b];
    if (buf.lifetime.last < 0 || buf.size == 0 || buf.tensor == kNoTensor) continue;  // scratch: no tensor to draw
    const int32_t first = std::max(buf.lifetime.first, 0), last = buf.lifetime.last;
    const int64_t low = plan.offsets[b], high = low + buf.size;
    const Slants& s = overlaps.slants[b];
    const int hue = static_cast<int>((buf.tensor * 137) % 360);
    const Tensor& t = flat_tensor(graph, buf.tensor);  // a whole model's problem numbers all subgraphs' tensors
    const bool view = views.count(static_cast<int32_t>(b)) > 0;
    out += fmt::format(
        "<polygon points=\"{}\" fill=\"hsl({},60%,66%)\" fill-opacity=\"{}\" stroke=\"hsl({},60%,28%)\" "
        "stroke-width=\"0.7\"{}><title>tensor {} '{}': {} bytes at offset {}, live at ops {}..{}{}</title>"
        "</polygon>\n",
        outline(f, first, last, low, high, s), hue, view ? "0.15" : "0.8", hue, view ? " stroke-dasharray=\"3 2\"" : "",
        buf.tensor, escape(t.name), grouped(buf.size), grouped(low), buf.lifetime.first, last,
        view ? " (a view into another tensor)" : "");
    // The label goes in the unslanted part, when it fits.
    const double left = f.x(first) + (s.output_slanted ? f.column() : 0);
    const double right = f.x(last + 1) - (s.input_slanted ? f.column() : 0);
    const std::string label = fmt::format("t{}", buf.tensor);
    const double height = f.y(low) - f.y(high);
    const double label_length = 5.4 * static_cast<double>(label.size()) + 2;
    const double centre_x = (left + right) / 2, centre_y = (f.y(low) + f.y(high)) / 2;
    if (right - left >= label_length && height >= 11) {
      labels += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#1a1a1a\">"
                            "{}</text>\n",
                            centre_x, centre_y + 3, label);
    } else if ((right - left >= 9 || (s.output_slanted && s.input_slanted && last > first && f.column() >= 12)) && height >= label_length) {
      // Tall and narrow, or slanted at both ends (then on the column boundary
      // between the slants, where the shape is full height): written upwards.
      labels += fmt::format("<text transform=\"translate({:.1f} {:.1f}) rotate(-90)\" font-size=\"9\" "
                            "text-anchor=\"middle\" fill=\"#1a1a1a\">{}</text>\n",
                            centre_x + 3, centre_y, label);
    }
  }
  for (const SharedBand& band : overlaps.bands) {
    const double bottom = f.y(band.low), top = std::min(f.y(band.high), bottom - kMinTensorPixels);
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" stroke=\"#222\" "
        "stroke-width=\"0.6\"><title>{}: output tensor {} shares {} bytes with the dying input tensor {}, walking "
        "{}</title></rect>\n",
        f.x(band.time), top, f.column() * (band.last_time - band.time + 1), bottom - top, kHatch, band.who,
        band.output_tensor,
        grouped(band.high - band.low), band.input_tensor, band.descending ? "descending" : "ascending");
  }
  out += labels;
  out += fmt::format(
      "<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#c00\" stroke-width=\"1.2\" "
      "stroke-dasharray=\"6 4\"/><text x=\"{1:.1f}\" y=\"{3:.1f}\" font-size=\"10\" text-anchor=\"end\" "
      "fill=\"#c00\">arena {4} bytes</text>\n",
      f.x0, f.x0 + kPanelWidth, f.y(plan.arena_size), f.y(plan.arena_size) - 3, grouped(plan.arena_size));
  out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#888\"/>\n",
                     f.x0, kTop, kPanelWidth, kPanelHeight);
  out += "</g>\n";
  return out;
}

std::string legend(double y) {
  struct Entry {
    std::string symbol, text;
  };
  const std::vector<Entry> entries = {
      {"<rect x=\"0\" y=\"-9\" width=\"22\" height=\"10\" fill=\"hsl(200,60%,66%)\" stroke=\"hsl(200,60%,28%)\"/>",
       "tensor tN: from the op writing it to the last op reading it (hover: name, size, offset)"},
      {"<polygon points=\"0,1 11,1 22,-9 0,-9\" fill=\"hsl(30,60%,66%)\" stroke=\"hsl(30,60%,28%)\"/>",
       "slanted end: the input is read away as the op runs..."},
      {"<polygon points=\"0,1 22,1 22,-9 11,-9\" fill=\"hsl(130,60%,66%)\" stroke=\"hsl(130,60%,28%)\"/>",
       "...while the output is written into the bytes it frees"},
      {fmt::format("<rect x=\"0\" y=\"-9\" width=\"22\" height=\"10\" fill=\"{}\" stroke=\"#222\"/>", kHatch),
       "bytes output and dying input share at that op (up to its safe overlap O_s)"},
      {"<rect x=\"0\" y=\"-10\" width=\"22\" height=\"12\" fill=\"#ffe680\"/>", "peak op: most bytes live"},
      {"<path d=\"M11 1l-5 -9h10z\" fill=\"#1f4e9c\"/>", "op walks its output descending (output above its input)"},
      {"<line x1=\"0\" x2=\"22\" y1=\"-4\" y2=\"-4\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>", "arena size"},
  };
  std::string out;
  double x = kLeft;
  const double right = kLeft + 2 * kPanelWidth + kGap;
  for (const Entry& e : entries) {
    const double width = 34 + 5.6 * static_cast<double>(e.text.size());
    if (x + width > right && x > kLeft) {
      x = kLeft;
      y += 18;
    }
    out += fmt::format("<g transform=\"translate({:.1f} {:.1f})\">{}<text x=\"28\" y=\"0\" font-size=\"11\">{}</text></g>\n",
                       x, y, e.symbol, escape(e.text));
    x += width;
  }
  return out;
}

}  // namespace

std::string plan_svg(const Graph& graph, const PlanResult& r) {
  const int64_t max_bytes = std::max<int64_t>({r.tflm_greedy.arena_size, r.dmo.arena_size, 1});
  const auto ops = static_cast<int32_t>(graph.main().ops.size());
  const double width = kLeft + 2 * kPanelWidth + kGap + kRight, legend_top = kTop + kPanelHeight + 60;
  const double height = legend_top + 64;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
      "font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      width, height);
  out +=
      "<defs><pattern id=\"shared-bytes\" patternUnits=\"userSpaceOnUse\" width=\"5\" height=\"5\" "
      "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"5\" stroke=\"#111\" "
      "stroke-width=\"1\" stroke-opacity=\"0.7\"/></pattern></defs>\n";
  const double saving =
      r.tflm_greedy.arena_size > 0
          ? 100.0 * static_cast<double>(r.tflm_greedy.arena_size - r.dmo.arena_size) / static_cast<double>(r.tflm_greedy.arena_size)
          : 0.0;
  out += fmt::format("<text x=\"{:.1f}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}: the tensor arena over "
                     "time</text>\n",
                     kLeft, escape(graph.source));
  // With split stages dmo's plan runs on the schedule's steps, TFLM's on
  // the model's ops: each panel has its own time axis.
  const bool split = !r.schedule.stages.empty();
  Frame dmo{kLeft + kPanelWidth + kGap, 0, max_bytes, split, split ? r.op_times : std::vector<int32_t>{}};
  std::set<int32_t> ops_sharing;
  for (const SharedBand& band : overlaps_in(r.problem, r.dmo, dmo, r.schedule).bands) ops_sharing.insert(band.op);
  const size_t overlapping_ops = ops_sharing.size();
  out += fmt::format(
      "<text x=\"{:.1f}\" y=\"44\" font-size=\"12\" fill=\"#333\">{} ops, both plans on one address scale. dmo lets "
      "an op write its output over the input dying at that op: {} bytes, {:.1f}% {} than TFLM's {} ({} "
      "ops do, {} walking descending).</text>\n",
      kLeft, ops, grouped(r.dmo.arena_size), std::abs(saving), saving < 0 ? "more" : "less",
      grouped(r.tflm_greedy.arena_size),
      overlapping_ops, r.dmo.descending_ops.size());
  // A model of several subgraphs runs on one timeline longer than subgraph
  // 0's op list (called subgraphs' ops take times of their own): the time
  // axis spans every time a buffer lives.
  auto times_of = [ops](const MemoryProblem& problem) {
    int32_t times = ops;
    for (const BufferRequest& buffer : problem.buffers) times = std::max(times, buffer.lifetime.last + 1);
    return times;
  };
  // Unsplit, both panels share one axis (the longer timeline, as before).
  const int32_t shared_times = std::max(times_of(r.problem), times_of(r.tflm_problem));
  const Frame tflm{kLeft, split ? times_of(r.tflm_problem) : shared_times, max_bytes};
  dmo.ops = split ? times_of(r.problem) : shared_times;
  // An offline plan puts tensors where it says, overlapping or not, as TFLM does.
  const std::string tflm_title = r.offline_planned_buffers > 0
                                     ? fmt::format("TFLM greedy, {} tensors at the model's offline offsets",
                                                   r.offline_planned_buffers)
                                     : std::string("TFLM greedy");
  // The live bytes are per time of dmo's problem: TFLM's panel marks the
  // peak only where its times are the same.
  out += panel(graph, r.tflm_problem, r.tflm_greedy, tflm_title, tflm, r, split ? -1 : r.peak_op);
  // The stages by name where they fit the panel's width, else their count.
  const std::string stages = split_stages_text(r.schedule.stages);
  const std::string dmo_title =
      !split               ? fmt::format("dmo ({} overlap)", overlap_method_name(r.method))
      : stages.size() <= 16 ? fmt::format("dmo ({} overlap, split {})", overlap_method_name(r.method), stages)
                            : fmt::format("dmo ({} overlap, {} split stages)", overlap_method_name(r.method),
                                          r.schedule.stages.size());
  out += panel(graph, r.problem, r.dmo, dmo_title, dmo, r, r.peak_op);
  out += legend(legend_top);
  out += "</svg>\n";
  return out;
}

}  // namespace dmo
