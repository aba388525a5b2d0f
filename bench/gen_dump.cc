// gen_dump: writes a synthetic `kubectl get resourceslices -o json|yaml` dump.
//   gen_dump [--nodes N] [--gpus G] [--yaml] > dump.json
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/slice_dump.h"

int main(int argc, char** argv) {
  int nodes = 5000, gpus = 8;
  auto format = dra::bench::DumpFormat::kJson;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--nodes" && i + 1 < argc) {
      nodes = std::atoi(argv[++i]);
    } else if (a == "--gpus" && i + 1 < argc) {
      gpus = std::atoi(argv[++i]);
    } else if (a == "--yaml") {
      format = dra::bench::DumpFormat::kYaml;
    } else {
      std::fprintf(stderr, "usage: gen_dump [--nodes N] [--gpus G] [--yaml]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  if (nodes <= 0 || gpus <= 0 || gpus > 128) {
    std::fprintf(stderr, "gen_dump: --nodes must be > 0 and --gpus in 1..128\n");
    return 2;
  }
  std::string dump = dra::bench::GenerateSliceDump(nodes, gpus, format);
  std::fwrite(dump.data(), 1, dump.size(), stdout);
  return 0;
}
