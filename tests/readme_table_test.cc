// The README's "Reference figures" table is what the library computes: every
// row (a shared model or a zoo model) is recomputed with plan_model's
// default options, as bench/plan_table.sh does with `dmo plan --json --split none`, and
// every cell must match as printed. The table has a row for every shared model.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dmo/report/plan_report.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/zoo.h"
#include "test_support.h"

namespace dmo {
namespace {

const std::vector<std::string> kColumns = {"model",
                                           "naive",
                                           "tflm_greedy",
                                           "lower_bound",
                                           "dmo, no overlap",
                                           "bound with overlap",
                                           "dmo",
                                           "ops walking descending",
                                           "dmo, ascending only (TFLM)",
                                           "saving vs TFLM"};

struct TableRow {
  std::vector<std::string> cells;
  int line = 0;  // in README.md, for messages
};

// How GoogleTest names a row's parameter in its messages.
void PrintTo(const TableRow& row, std::ostream* os) {
  *os << "README.md line " << row.line << ": " << (row.cells.empty() ? std::string("(empty)") : row.cells[0]);
}

struct ReferenceTable {
  std::vector<std::string> header;
  std::vector<TableRow> rows;
};

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line.substr(1));  // past the leading '|'
  std::string cell;
  while (std::getline(ss, cell, '|')) {
    const size_t first = cell.find_first_not_of(' ');
    const size_t last = cell.find_last_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return cells;
}

// The first table under the "## Reference figures" heading; empty when absent.
ReferenceTable read_reference_table() {
  ReferenceTable table;
  const std::filesystem::path readme = std::filesystem::path(DMO_SOURCE_DIR) / "README.md";
  std::ifstream in(readme);
  std::string line;
  bool in_section = false;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("## ", 0) == 0) {
      if (in_section) break;
      in_section = line == "## Reference figures";
      continue;
    }
    if (!in_section) continue;
    if (line.rfind("|", 0) != 0) {
      if (!table.header.empty()) break;  // the table has ended
      continue;
    }
    if (table.header.empty()) {
      table.header = split_cells(line);
    } else if (line.rfind("|---", 0) != 0) {
      table.rows.push_back({split_cells(line), number});
    }
  }
  return table;
}

// 1234567 -> "1,234,567", as Python's format(n, ","); the figures are never negative.
std::string with_thousands(int64_t value) {
  const std::string digits = std::to_string(value);
  std::string grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped.push_back(',');
    grouped.push_back(digits[i]);
  }
  return grouped;
}

// The row bench/plan_table.sh prints for `graph`, named `name`.
std::vector<std::string> computed_row(const std::string& name, const Graph& graph) {
  const PlanResult r = plan_model(graph);
  const double saving_percent = plan_report_json(graph, r)["saving_vs_tflm_percent"].get<double>();
  return {name,
          with_thousands(r.naive_bytes),
          with_thousands(r.tflm_greedy.arena_size),
          with_thousands(r.lower_bound_bytes),
          with_thousands(r.dmo_no_overlap.arena_size),
          with_thousands(r.lower_bound_overlap_bytes),
          with_thousands(r.dmo.arena_size),
          std::to_string(r.dmo.descending_ops.size()),
          with_thousands(r.dmo_ascending.arena_size),
          fmt::format("{:.1f}%", saving_percent)};
}

std::vector<TableRow> table_rows() { return read_reference_table().rows; }

TEST(ReadmeTable, HasItsColumnsAndARowForEveryModel) {
  const ReferenceTable table = read_reference_table();
  ASSERT_EQ(table.header, kColumns) << "README.md: no \"Reference figures\" table with the expected columns";
  std::set<std::string> named;
  for (const TableRow& row : table.rows) {
    ASSERT_EQ(row.cells.size(), kColumns.size()) << "README.md line " << row.line;
    EXPECT_TRUE(named.insert(row.cells[0]).second) << "README.md line " << row.line << ": a second row for "
                                                   << row.cells[0];
  }
  const std::vector<std::string> zoo = {"mobilenet_v1_0.25_128_int8", "mobilenet_v2_1.0_224_float32"};
  for (const std::string& name : zoo) EXPECT_TRUE(named.count(name)) << "no row for zoo model " << name;
  auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "../shared not found: the rows of the shared models are not checked";
  const std::vector<std::string> files = test::tflite_files_in(*shared + "/models");
  for (const std::string& file : files) EXPECT_TRUE(named.count(test::file_stem(file))) << "no row for " << file;
  EXPECT_EQ(table.rows.size(), files.size() + zoo.size());
}

class ReadmeTableRow : public ::testing::TestWithParam<TableRow> {};

TEST_P(ReadmeTableRow, MatchesTheLibrary) {
  const TableRow& row = GetParam();
  ASSERT_EQ(row.cells.size(), kColumns.size()) << "README.md line " << row.line;
  const std::string& name = row.cells[0];
  Graph graph;
  if (is_zoo_model_name(name)) {
    graph = build_zoo_model(name);
  } else {
    auto shared = test::shared_dir();
    if (!shared) GTEST_SKIP() << "../shared not found: row " << name << " not checked";
    const std::string path = *shared + "/models/" + name + ".tflite";
    ASSERT_TRUE(std::filesystem::is_regular_file(path)) << "README.md line " << row.line << ": no model " << path;
    graph = read_tflite_file(path);
  }
  const std::vector<std::string> expected = computed_row(name, graph);
  for (size_t c = 1; c < kColumns.size(); ++c) {
    EXPECT_EQ(row.cells[c], expected[c]) << "README.md line " << row.line << ", " << name << ", column \""
                                         << kColumns[c] << "\"";
  }
}

std::string row_test_name(const ::testing::TestParamInfo<TableRow>& info) {
  std::string name = info.param.cells.empty() ? "line_" + std::to_string(info.param.line) : info.param.cells[0];
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Readme, ReadmeTableRow, ::testing::ValuesIn(table_rows()), row_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReadmeTableRow);

}  // namespace
}  // namespace dmo
