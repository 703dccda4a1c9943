// `dmo fit`: the built-in micro-controller table, its parser's errors, the
// fit of arenas and model files against parts, and the command's figures,
// which must be `dmo plan`'s arenas and the model file's size.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "dmo/report/microcontroller_fit.h"
#include "test_support.h"

namespace dmo {
namespace {

TEST(MicrocontrollerTable, HasPartsFromCortexM0PlusToM7AndEsp32WithTheirSources) {
  const std::vector<Microcontroller>& parts = microcontrollers();
  EXPECT_GE(parts.size(), 12u);
  auto has_core = [&](const std::string& core) {
    return std::any_of(parts.begin(), parts.end(), [&](const Microcontroller& p) { return p.core.find(core) == 0; });
  };
  for (const char* core : {"Cortex-M0+", "Cortex-M3", "Cortex-M4F", "Cortex-M33", "Cortex-M7", "Xtensa"}) {
    EXPECT_TRUE(has_core(core)) << core;
  }
  for (const Microcontroller& p : parts) {
    SCOPED_TRACE(p.part);
    EXPECT_GT(p.sram_bytes, 0);
    EXPECT_GT(p.flash_bytes, 0);
    EXPECT_TRUE(p.source.find("datasheet") != std::string::npos || p.source.find("data sheet") != std::string::npos ||
                p.source.find("Product Specification") != std::string::npos)
        << p.source;
    EXPECT_TRUE(p.flash == "on-chip" || p.flash.rfind("external, ", 0) == 0) << p.flash;
  }
  // Two figures checked against the datasheets by hand.
  auto find = [&](const std::string& name) {
    return *std::find_if(parts.begin(), parts.end(), [&](const Microcontroller& p) { return p.part == name; });
  };
  EXPECT_EQ(find("nRF52840").sram_bytes, 256 * 1024);
  EXPECT_EQ(find("STM32F746NG").flash_bytes, 1024 * 1024);
}

TEST(MicrocontrollerTable, MalformedRowsNameTheirLine) {
  EXPECT_EQ(parse_microcontrollers("# comment\n\nA\tM0\t1024\t2048\ton-chip\tsheet\n").size(), 1u);
  EXPECT_NE(test::error_of([] { parse_microcontrollers("# c\nA\tM0\t1024\t2048\ton-chip\n"); })
                .find("line 2: 5 fields, expected 6"),
            std::string::npos);
  EXPECT_NE(test::error_of([] { parse_microcontrollers("A\tM0\t1k\t2048\ton-chip\tsheet\n"); })
                .find("line 1: sram_bytes '1k' is not a positive number of bytes"),
            std::string::npos);
  EXPECT_NE(test::error_of([] { parse_microcontrollers("A\tM0\t1024\t0\ton-chip\tsheet\n"); }).find("flash_bytes '0'"),
            std::string::npos);
  EXPECT_NE(test::error_of([] { parse_microcontrollers("A\t\t1024\t2048\ton-chip\tsheet\n"); })
                .find("line 1: field 2 is empty"),
            std::string::npos);
}

TEST(MicrocontrollerFit, AnArenaOrModelFitsUpToTheLastByte) {
  const std::vector<Microcontroller> parts = parse_microcontrollers("A\tM0\t1000\t5000\ton-chip\tsheet\n");
  ModelFootprint f{"m", 5000, 1001, 1000, ""};
  std::vector<PartFit> fits = fit_parts(f, parts);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_FALSE(fits[0].tflm_arena_fits);
  EXPECT_TRUE(fits[0].dmo_arena_fits);
  EXPECT_TRUE(fits[0].model_fits);
  f.model_bytes = 5001;
  EXPECT_FALSE(fit_parts(f, parts)[0].model_fits);
  const std::string text = fit_text(f, fit_parts(f, parts));
  EXPECT_NE(text.find("The arena fits 1 of 1 parts with dmo's plan, 0 with TFLM's"), std::string::npos) << text;
}

TEST(FitCli, FiguresAreThePlansArenasAndTheModelFilesSize) {
  constexpr const char* kModel = "mobilenet_v1_0.25_128_int8";
  const test::CommandResult fit = test::run_dmo({"fit", kModel, "--json"});
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  const test::CommandResult plan = test::run_dmo({"plan", kModel, "--json"});
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  const nlohmann::json f = nlohmann::json::parse(fit.out), p = nlohmann::json::parse(plan.out);
  EXPECT_EQ(f["dmo_arena_bytes"], p["dmo_bytes"]);
  EXPECT_EQ(f["tflm_arena_bytes"], p["tflm_greedy_bytes"]);
  EXPECT_EQ(f["dmo_plan"], "--split 2-3:5");
  const std::string file =
      (std::filesystem::temp_directory_path() / ("dmo_fit_" + std::to_string(::getpid()) + ".tflite")).string();
  ASSERT_EQ(test::run_dmo({"zoo", kModel, "-o", file}).exit_status, 0);
  EXPECT_EQ(f["model_bytes"].get<int64_t>(), static_cast<int64_t>(std::filesystem::file_size(file)));
  // The file gives the same figures as the zoo name.
  const nlohmann::json from_file = nlohmann::json::parse(test::run_dmo({"fit", file, "--json"}).out);
  EXPECT_EQ(from_file["model_bytes"], f["model_bytes"]);
  EXPECT_EQ(from_file["dmo_arena_bytes"], f["dmo_arena_bytes"]);
  std::filesystem::remove(file);
  ASSERT_EQ(f["parts"].size(), microcontrollers().size());
  for (const nlohmann::json& part : f["parts"]) {
    EXPECT_EQ(part["dmo_arena_fits"], part["sram_bytes"].get<int64_t>() >= f["dmo_arena_bytes"].get<int64_t>());
    EXPECT_EQ(part["tflm_arena_fits"], part["sram_bytes"].get<int64_t>() >= f["tflm_arena_bytes"].get<int64_t>());
    EXPECT_EQ(part["model_fits"], part["flash_bytes"].get<int64_t>() >= f["model_bytes"].get<int64_t>());
  }
  // Unsplit, dmo's arena is the plan's without stages.
  const nlohmann::json whole = nlohmann::json::parse(test::run_dmo({"fit", kModel, "--split", "none", "--json"}).out);
  EXPECT_EQ(whole["dmo_plan"], "every op whole");
  EXPECT_EQ(whole["dmo_arena_bytes"],
            nlohmann::json::parse(test::run_dmo({"plan", kModel, "--split", "none", "--json"}).out)["dmo_bytes"]);
}

TEST(FitCli, BadInputIsOneLineAndExit2) {
  const test::CommandResult missing = test::run_dmo({"fit", "/nonexistent/model.tflite"});
  EXPECT_EQ(missing.exit_status, 2);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  const test::CommandResult bad_split = test::run_dmo({"fit", "mobilenet_v1_0.25_128_int8", "--split", "9-1:2"});
  EXPECT_EQ(bad_split.exit_status, 2) << bad_split.err;
}

}  // namespace
}  // namespace dmo
