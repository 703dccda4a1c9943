#include "dmo/report/microcontroller_fit.h"

#include <fmt/format.h>

#include <charconv>

#include "dmo/error.h"
#include "dmo/report/grouped_number.h"
#include "microcontrollers_tsv.h"

namespace dmo {
namespace {

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  for (size_t start = 0;;) {
    const size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return fields;
    start = tab + 1;
  }
}

int64_t parse_bytes(std::string_view text, size_t line, const char* what) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value <= 0) {
    throw Error(fmt::format("microcontroller table line {}: {} '{}' is not a positive number of bytes", line, what,
                            text));
  }
  return value;
}

std::string kib(int64_t bytes) {
  return bytes % 1024 == 0 ? fmt::format("{}", bytes / 1024) : fmt::format("{:.1f}", static_cast<double>(bytes) / 1024);
}

const char* yes_no(bool fits) { return fits ? "yes" : "no"; }

}  // namespace

std::vector<Microcontroller> parse_microcontrollers(std::string_view tsv) {
  std::vector<Microcontroller> parts;
  size_t line_number = 0;
  for (size_t start = 0; start < tsv.size();) {
    size_t end = tsv.find('\n', start);
    if (end == std::string_view::npos) end = tsv.size();
    const std::string_view line = tsv.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    const std::vector<std::string_view> f = split_fields(line);
    if (f.size() != 6) {
      throw Error(fmt::format("microcontroller table line {}: {} fields, expected 6 (part, core, sram_bytes, "
                              "flash_bytes, flash, source)",
                              line_number, f.size()));
    }
    for (size_t k = 0; k < f.size(); ++k) {
      if (f[k].empty()) throw Error(fmt::format("microcontroller table line {}: field {} is empty", line_number, k + 1));
    }
    parts.push_back({std::string(f[0]), std::string(f[1]), parse_bytes(f[2], line_number, "sram_bytes"),
                     parse_bytes(f[3], line_number, "flash_bytes"), std::string(f[4]), std::string(f[5])});
  }
  return parts;
}

const std::vector<Microcontroller>& microcontrollers() {
  static const std::vector<Microcontroller> parts = parse_microcontrollers(kMicrocontrollersTsv);
  return parts;
}

std::vector<PartFit> fit_parts(const ModelFootprint& footprint, const std::vector<Microcontroller>& parts) {
  std::vector<PartFit> fits;
  for (const Microcontroller& part : parts) {
    fits.push_back({&part, footprint.tflm_arena_bytes <= part.sram_bytes,
                    footprint.dmo_arena_bytes <= part.sram_bytes, footprint.model_bytes <= part.flash_bytes});
  }
  return fits;
}

std::string fit_text(const ModelFootprint& f, const std::vector<PartFit>& fits) {
  std::string out = fmt::format(
      "model: {}\nmodel file {} bytes (flash); activation arena: TFLM {} bytes, dmo {} bytes{}\n\n", f.model,
      grouped(f.model_bytes), grouped(f.tflm_arena_bytes), grouped(f.dmo_arena_bytes),
      f.dmo_plan.empty() ? "" : fmt::format(" ({})", f.dmo_plan));
  out += fmt::format("{:<14} {:<18} {:>9} {:>10}  {:<11} {:<10} {:<14} {:>14}\n", "part", "core", "SRAM KiB",
                     "flash KiB", "TFLM arena", "dmo arena", "model in flash", "SRAM left, dmo");
  int tflm = 0, dmo = 0, both = 0, both_tflm = 0;
  for (const PartFit& fit : fits) {
    const Microcontroller& p = *fit.part;
    const std::string left =
        fit.dmo_arena_fits ? fmt::format("{} KiB", kib(p.sram_bytes - f.dmo_arena_bytes)) : std::string("-");
    out += fmt::format("{:<14} {:<18} {:>9} {:>10}  {:<11} {:<10} {:<14} {:>14}\n", p.part, p.core, kib(p.sram_bytes),
                       kib(p.flash_bytes) + (p.flash == "on-chip" ? "" : "*"), yes_no(fit.tflm_arena_fits),
                       yes_no(fit.dmo_arena_fits), yes_no(fit.model_fits), left);
    tflm += fit.tflm_arena_fits;
    dmo += fit.dmo_arena_fits;
    both += fit.dmo_arena_fits && fit.model_fits;
    both_tflm += fit.tflm_arena_fits && fit.model_fits;
  }
  out += fmt::format(
      "\nThe arena fits {} of {} parts with dmo's plan, {} with TFLM's; arena and model together: {} with dmo, {} "
      "with TFLM.\n",
      dmo, fits.size(), tflm, both, both_tflm);
  out += "* external flash of the board or module the table names. SRAM is the part's total on-chip SRAM: the "
         "arena needs one contiguous block and shares SRAM with the stack, TFLM's persistent buffers and the "
         "application; flash also holds the program.\n";
  return out;
}

nlohmann::json fit_json(const ModelFootprint& f, const std::vector<PartFit>& fits) {
  nlohmann::json parts = nlohmann::json::array();
  for (const PartFit& fit : fits) {
    const Microcontroller& p = *fit.part;
    parts.push_back({{"part", p.part},
                     {"core", p.core},
                     {"sram_bytes", p.sram_bytes},
                     {"flash_bytes", p.flash_bytes},
                     {"flash", p.flash},
                     {"source", p.source},
                     {"tflm_arena_fits", fit.tflm_arena_fits},
                     {"dmo_arena_fits", fit.dmo_arena_fits},
                     {"model_fits", fit.model_fits}});
  }
  return {{"model", f.model},
          {"model_bytes", f.model_bytes},
          {"tflm_arena_bytes", f.tflm_arena_bytes},
          {"dmo_arena_bytes", f.dmo_arena_bytes},
          {"dmo_plan", f.dmo_plan},
          {"parts", parts}};
}

}  // namespace dmo
