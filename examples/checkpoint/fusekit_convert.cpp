// fusekit-convert: MiniMax-H3 checkpoints between layouts, plus a generator of random-weight
// checkpoints and a timed round trip in the seed report's format (usage in convert_cli.hpp and
// docs/checkpoint.md).
#include "convert_cli.hpp"

#include <iostream>

int main(int argc, char** argv) { return fusekit::convert_cli::run(argc, argv, std::cout, std::cerr); }
