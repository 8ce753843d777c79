# fusekit_add_gemm_instances(<name>): a static library holding the GEMM entry points' kernels
# (include/fusekit/gemm/instances.hpp), compiled once in four files that build in parallel.
# Targets that link it compile none of those kernels themselves: it defines
# FUSEKIT_GEMM_EXTERN_INSTANCES for them, which makes fusekit/gemm/linear.hpp declare the
# instances extern. Same kernels and bits as the header-only way; it needs the CUDA language
# enabled, C++20 (CMAKE_CUDA_STANDARD, as every file that includes the GEMM headers) and builds for
# CMAKE_CUDA_ARCHITECTURES (sm_90a for the Hopper main loop).
function(fusekit_add_gemm_instances name)
  set(sources "")
  foreach(entry LINEAR LINEAR_GLU LINEAR_RESIDUAL LINEAR_QKV)
    string(TOLOWER ${entry} file)
    set(src ${CMAKE_CURRENT_BINARY_DIR}/${name}/${file}.cu)
    file(GENERATE OUTPUT ${src}
         CONTENT "#define FUSEKIT_GEMM_DEFINE_${entry}\n#include <fusekit/gemm/instances.hpp>\n")
    list(APPEND sources ${src})
  endforeach()
  add_library(${name} STATIC ${sources})
  target_link_libraries(${name} PUBLIC fusekit::fusekit)
  target_compile_definitions(${name} PUBLIC FUSEKIT_GEMM_EXTERN_INSTANCES)
endfunction()
