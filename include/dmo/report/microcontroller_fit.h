// Which micro-controllers a model fits (`dmo fit`): its activation arena,
// TFLM's and dmo's, against each part's on-chip SRAM, and its .tflite file
// (weights and graph, which TFLM keeps in flash) against the part's flash.
// The parts come from data/microcontrollers.tsv, built into the binary,
// each with the datasheet its figures come from.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace dmo {

struct Microcontroller {
  std::string part;
  std::string core;
  int64_t sram_bytes = 0;   // on-chip SRAM, all banks
  int64_t flash_bytes = 0;  // on-chip flash, or the named board's external flash
  std::string flash;        // "on-chip", or "external, <board or module>"
  std::string source;       // the datasheets the figures come from
};

// The table of the TSV text: '#' lines are comments; six tab-separated
// fields per part. Throws dmo::Error naming the line of a malformed row.
std::vector<Microcontroller> parse_microcontrollers(std::string_view tsv);

// The built-in table.
const std::vector<Microcontroller>& microcontrollers();

struct ModelFootprint {
  std::string model;
  int64_t model_bytes = 0;       // the .tflite file
  int64_t tflm_arena_bytes = 0;  // TFLM's greedy planner
  int64_t dmo_arena_bytes = 0;   // dmo's plan
  std::string dmo_plan;          // how dmo's plan was made, e.g. "--split 2-3:5"
};

struct PartFit {
  const Microcontroller* part = nullptr;
  bool tflm_arena_fits = false;
  bool dmo_arena_fits = false;
  bool model_fits = false;
};

std::vector<PartFit> fit_parts(const ModelFootprint& footprint, const std::vector<Microcontroller>& parts);

std::string fit_text(const ModelFootprint& footprint, const std::vector<PartFit>& fits);
nlohmann::json fit_json(const ModelFootprint& footprint, const std::vector<PartFit>& fits);

}  // namespace dmo
