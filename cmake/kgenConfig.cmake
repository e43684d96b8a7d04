# kgenConfig.cmake - find_package(kgen) for products: imports kgen::kgrt,
# sets KGEN_EXECUTABLE to the installed kgen (beside this package, else on
# PATH) and gives kgen_add_model().
include(${CMAKE_CURRENT_LIST_DIR}/kgenTargets.cmake)
find_program(KGEN_EXECUTABLE kgen HINTS ${CMAKE_CURRENT_LIST_DIR}/../../../bin REQUIRED)
include(${CMAKE_CURRENT_LIST_DIR}/kgen_add_model.cmake)
