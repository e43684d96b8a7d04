# kgen_add_model(<name> MODEL <model.lua> ARCHES <arch>... [KGEN <exe>] [OPTIONS ...])
# Runs kgen at build time on <model.lua> for the given arches and adds a
# static library <name> holding the generated kernel table, linked to
# kgen::kgrt. kgen is this build's target, else KGEN, else KGEN_EXECUTABLE
# (which find_package(kgen) sets to the installed one), else found on PATH.
# The generated header is <model>.h in the library's include path. kgen's
# listing of the kernels (name, arch, registers, LDS, code size) goes to
# <model>.kernels.txt beside the generated files, which keeps the build's
# output to its progress lines; errors still reach the terminal.
function(kgen_add_model name)
  cmake_parse_arguments(KA "" "MODEL;KGEN" "ARCHES;OPTIONS;DEPENDS" ${ARGN})
  if(NOT KA_MODEL OR NOT KA_ARCHES)
    message(FATAL_ERROR "kgen_add_model(${name}): MODEL and ARCHES are required")
  endif()
  if(NOT KA_KGEN)
    if(TARGET kgen)
      set(KA_KGEN $<TARGET_FILE:kgen>)
      list(APPEND KA_DEPENDS kgen)
    elseif(KGEN_EXECUTABLE)
      set(KA_KGEN ${KGEN_EXECUTABLE})
    else()
      find_program(KA_KGEN kgen REQUIRED)
    endif()
  endif()
  get_filename_component(model_abs ${KA_MODEL} ABSOLUTE)
  get_filename_component(model_name ${KA_MODEL} NAME_WE)
  string(MAKE_C_IDENTIFIER "${model_name}" model_id)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name}_kgen)
  set(outputs ${dir}/${model_id}.h ${dir}/${model_id}.c)
  foreach(arch IN LISTS KA_ARCHES)
    list(APPEND outputs ${dir}/${model_id}_${arch}.c)
  endforeach()
  string(REPLACE ";" "," arch_list "${KA_ARCHES}")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${KA_KGEN} --arch ${arch_list} ${KA_OPTIONS} ${model_abs} -o ${dir}
            > ${dir}/${model_id}.kernels.txt
    DEPENDS ${model_abs} ${KA_DEPENDS}
    COMMENT "kgen ${KA_MODEL} for ${arch_list}"
    VERBATIM)
  add_library(${name} STATIC ${outputs})
  target_include_directories(${name} PUBLIC ${dir})
  target_link_libraries(${name} PUBLIC kgen::kgrt)
endfunction()
