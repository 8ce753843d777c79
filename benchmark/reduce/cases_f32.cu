// Row-op benchmark cases in fp32 (one translation unit per dtype keeps compile units small).
#include "row_cases.hpp"

FUSEKIT_BENCH_REGISTER(fusekit::bench::register_row_suites<float>);
