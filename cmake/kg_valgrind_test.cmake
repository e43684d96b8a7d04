# kg_valgrind_test(NAME <name> COMMAND <exe> <arg>...): a test of the command
# under valgrind (no leak and no invalid access, else exit 3), or, where
# valgrind is not installed, a test that says so and is skipped (exit 77).
find_program(KG_VALGRIND valgrind)
function(kg_valgrind_test)
  cmake_parse_arguments(KV "" "NAME" "COMMAND" ${ARGN})
  if(KG_VALGRIND)
    add_test(NAME ${KV_NAME}
      COMMAND ${KG_VALGRIND} -q --error-exitcode=3 --leak-check=full
              --errors-for-leak-kinds=definite,indirect,possible
              --show-leak-kinds=definite,indirect,possible ${KV_COMMAND})
  else()
    add_test(NAME ${KV_NAME}
      COMMAND sh -c "echo 'SKIPPED: valgrind is not installed (scripts/setup.sh installs it)'; exit 77")
    set_tests_properties(${KV_NAME} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endfunction()
