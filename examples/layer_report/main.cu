// fusekit-layer-report: seed 000's end-to-end check, from a diffusers checkpoint on disk to the
// fused linears on the GPU (issue #7). See docs/layer_report.md.
//
//   fusekit-layer-report --checkpoint DIR [--blocks 0,2] [--tokens 70,925] [--json OUT] ...
//
// 1. CPU: open the checkpoint and check it against the diffusers -> native plan, check the
//    blocks (a bad input stops here, before anything is written or any GPU work);
// 2. CPU: the mapping section (map to native, back, compare bit for bit, both timed);
// 3. GPU: per block, upload the native weights (and the diffusers ones the equality checks
//    use); per token count, check and time the four linears against the baseline.
// Exit status: 0 all checks true; 1 a check failed or a run error; 2 bad arguments or input;
// 3 no usable GPU (the JSON then holds the mapping section only).
#include "layer_checks.cuh"
#include "report_input.hpp"
#include "report_json.hpp"
#include "report_options.hpp"

#include <cctype>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

using namespace fusekit;
using namespace fusekit::layer_report;

namespace {

// The work directory: the one given, or a fresh temporary one removed at exit.
class WorkDir {
 public:
  static Status create(const Options& opt, WorkDir& out) {
    if (!opt.work_dir.empty()) {
      out.path_ = opt.work_dir;
      out.remove_ = false;
      return {};
    }
    std::string pattern = (std::filesystem::temp_directory_path() / "fusekit-layer-report-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) return {Errc::io_error, "cannot create a temporary directory " + pattern};
    out.path_ = pattern;
    out.remove_ = !opt.keep_work;
    return {};
  }
  WorkDir() = default;
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  ~WorkDir() {
    std::error_code ec;
    if (remove_) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool remove_ = false;
};

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// The kernel driver's version ("580.65.06"), from the file the NVIDIA module exports.
std::string nvidia_driver_version() {
  // e.g. "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...":
  // the first word made of digits and dots.
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line, word;
  if (!std::getline(in, line)) return "unknown";
  std::istringstream words(line);
  while (words >> word)
    if (std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos &&
        word.find_first_not_of("0123456789.") == std::string::npos)
      return word;
  return "unknown";
}

// Whether a GPU is there (fills the device fields), or why not.
bool find_gpu(RunInfo& run, std::string& why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    why = e != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e) : "no CUDA device present";
    cudaGetLastError();
    return false;
  }
  cudaDeviceProp prop{};
  int runtime = 0, driver = 0;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess || cudaRuntimeGetVersion(&runtime) != cudaSuccess ||
      cudaDriverGetVersion(&driver) != cudaSuccess) {
    why = "cannot query device 0";
    return false;
  }
  run.device = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
               std::to_string(prop.multiProcessorCount) + " SMs)";
  run.cuda_runtime = version_string(runtime);
  run.cuda_driver = version_string(driver);
  run.driver = nvidia_driver_version();
  return true;
}

std::string join(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::int64_t x : v) {
    if (!s.empty()) s += ',';
    s += std::to_string(x);
  }
  return s;
}

bool write_json(const std::string& path, const nlohmann::ordered_json& doc) {
  std::ofstream out(path, std::ios::trunc);
  out << doc.dump(1) << "\n";
  if (!out.good()) {
    std::cerr << "fusekit-layer-report: cannot write " << path << "\n";
    return false;
  }
  std::cout << "report written to " << path << "\n";
  return true;
}

int bad_input(const Status& s) {
  std::cerr << "fusekit-layer-report: " << s.to_string() << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (Status s = parse_options(argc, argv, opt); !s.ok()) {
    std::cerr << "fusekit-layer-report: " << s.message() << "\n" << kUsage;
    return 2;
  }
  Prepared input;
  if (Status s = prepare(opt, input); !s.ok()) return bad_input(s);
  std::cout << "checkpoint " << opt.checkpoint << ": " << input.input.size() << " tensors, "
            << input.config.main_blocks << " main blocks; report on blocks " << join(input.blocks) << " at tokens "
            << join(opt.tokens) << "\n";

  RunInfo run;
  run.checkpoint = opt.checkpoint;
  run.replays = opt.replays;
  run.calls_per_replay = opt.calls_per_replay;
  run.input_seed = opt.seed != 0 ? opt.seed : (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  std::vector<LayerResult> layers;
  std::vector<std::string> problems;

  WorkDir work;
  if (Status s = WorkDir::create(opt, work); !s.ok()) return bad_input(s);
  checkpoint::MappingReport mapping;
  if (Status s = measure_mapping(opt, input, work.path(), mapping); !s.ok()) {
    std::cerr << "fusekit-layer-report: mapping failed: " << s.to_string() << "\n";
    return 1;
  }
  std::cout << "mapping: " << mapping.checkpoint_tensors << " -> " << mapping.native_tensors << " tensors in "
            << mapping.groups << " groups, map " << mapping.map_seconds << " s, back " << mapping.inverse_seconds
            << " s, round trip bitwise: " << (mapping.roundtrip_bitwise ? "yes" : "NO") << "\n";
  if (!mapping.roundtrip_bitwise) problems.push_back("mapping: the round trip is not bitwise");

  std::string no_gpu;
  if (opt.mapping_only) {
    std::cout << "--mapping-only: layers not measured\n";
  } else if (!find_gpu(run, no_gpu)) {
    problems.push_back("no GPU: " + no_gpu + "; the layers section needs one");
    std::cerr << "fusekit-layer-report: no usable CUDA GPU (" << no_gpu
              << "): wrote the mapping section only; run on a GPU machine for the layers\n";
    write_json(opt.json_path, report_json(run, mapping, layers, problems));
    return 3;
  } else {
    std::cout << "device: " << run.device << ", CUDA runtime " << run.cuda_runtime << ", driver " << run.driver << "\n";
    cudaStream_t stream = nullptr;
    try {
      checkpoint::Checkpoint native;
      throw_if_failed(checkpoint::Checkpoint::open(native_dir(work.path()), native), "opening the native checkpoint");
      cuda_check(cudaStreamCreate(&stream), "cudaStreamCreate");  // blocking: ordered with the uploads
      LayerContext ctx;
      ctx.dims = h3_dims(input.config);
      ctx.stream = stream;
      throw_if_failed(current_device(ctx.device), "reading the device's properties");
      ctx.calls_per_replay = opt.calls_per_replay;
      ctx.replays = opt.replays;
      ctx.seed = run.input_seed;
      ctx.problems = &problems;
      for (std::int64_t block : input.blocks) {
        const BlockWeights weights = load_block(native, input.input, block);
        for (std::int64_t tokens : opt.tokens) {
          std::cout << "block " << block << ", " << tokens << " tokens ..." << std::flush;
          for (LayerResult& r : measure_block(ctx, weights, block, tokens)) layers.push_back(std::move(r));
          std::cout << " done\n";
        }
      }
    } catch (const std::exception& e) {
      problems.push_back(std::string("run stopped: ") + e.what());
      std::cerr << "\nfusekit-layer-report: " << e.what() << "\n";
    }
    if (stream) cudaStreamDestroy(stream);
  }

  for (const LayerResult& r : layers) {
    const std::string where =
        "block " + std::to_string(r.block) + ", " + std::to_string(r.tokens) + " tokens, " + r.linear + ": ";
    if (!r.repeatable) problems.push_back(where + "not repeatable");
    if (r.fused_equals_separate == false) problems.push_back(where + "fused != separate");
    if (r.fc1_equals_diffusers_swapped == false) problems.push_back(where + "fc1 != diffusers swapped");
  }
  if (!layers.empty()) std::cout << layer_table(layers);
  for (const std::string& p : problems) std::cout << "PROBLEM: " << p << "\n";
  const bool written = write_json(opt.json_path, report_json(run, mapping, layers, problems));
  return problems.empty() && written ? 0 : 1;
}
