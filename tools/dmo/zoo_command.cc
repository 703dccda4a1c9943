// `dmo zoo`: writes a zoo model as a standard .tflite file.
#include <fmt/format.h>

#include <iostream>

#include "commands.h"
#include "dmo/error.h"
#include "dmo/pipeline/model_source.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/zoo.h"
#include "output_file.h"

namespace dmo::cli {

Command add_zoo_command(CLI::App& app) {
  struct Options {
    std::string name, output;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("zoo", "Write a zoo model as a .tflite file");
  cmd->add_option("name", o->name, fmt::format("a zoo model name, {} (for example {})", kZooNameForm, kDefaultZooModel))
      ->required();
  cmd->add_option("-o,--output", o->output, "the .tflite file to write")->required();
  return [o] {
    std::vector<uint8_t> bytes = zoo_model_file(o->name);
    // What dmo writes, dmo must read back.
    Graph back = read_tflite_bytes(bytes, o->output);
    OutputFile file(o->output);
    file.write(bytes);
    file.commit();
    size_t ops = back.main().ops.size(), tensors = back.main().tensors.size();
    std::cout << fmt::format("wrote {}: zoo model {}, {} ops, {} tensors, {} bytes\n", o->output, o->name, ops,
                             tensors, bytes.size());
    return 0;
  };
}

}  // namespace dmo::cli
