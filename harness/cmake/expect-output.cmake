# ctest helper: runs HARNESS with ARGS ("@@"-separated), checks that the
# exit code is EXPECT_RC and that the output (stdout + stderr) contains
# every "@@"-separated literal in EXPECT. With EXPECT_ONE_LINE, stdout must
# be empty and stderr exactly one line.
string(REPLACE "@@" ";" _args "${ARGS}")
execute_process(COMMAND "${HARNESS}" ${_args}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
message("${_out}${_err}")
if(NOT "${_rc}" STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "exit code ${_rc}, expected ${EXPECT_RC}")
endif()
string(REPLACE "@@" ";" _expects "${EXPECT}")
foreach(_e IN LISTS _expects)
  string(FIND "${_out}${_err}" "${_e}" _at)
  if(_at EQUAL -1)
    message(FATAL_ERROR "output lacks: ${_e}")
  endif()
endforeach()
if(EXPECT_ONE_LINE)
  string(REGEX MATCHALL "\n" _newlines "${_err}")
  list(LENGTH _newlines _lines)
  if(NOT _out STREQUAL "" OR NOT _lines EQUAL 1 OR NOT _err MATCHES "\n$")
    message(FATAL_ERROR "expected no stdout and one line on stderr")
  endif()
endif()
