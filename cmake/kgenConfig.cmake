# kgenConfig.cmake - find_package(kgen) for products: imports kgen::kgrt and
# kgen_add_model(). The kgen executable is found on PATH or given as KGEN.
include(${CMAKE_CURRENT_LIST_DIR}/kgenTargets.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/kgen_add_model.cmake)
