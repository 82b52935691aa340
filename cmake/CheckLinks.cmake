# cmake/CheckLinks.cmake: every link edge a module declares is used (ctest
# `layering_links`, registered by tests/layering/CMakeLists.txt).
#
# A dead edge (a library linked but never called) hides the real shape of
# the layering and drags a dependency into every program above it. For
# each module library M and each library D it links, some symbol M leaves
# undefined must be one D defines (nm on the built archives); for the
# system libraries in the table below, some symbol M uses must carry that
# library's prefix. Header-only and runtime libraries (stb, OpenMP, libm,
# pthreads) are not checked.
#
# Inputs: NM (the nm program), MODULES (names, comma-separated), and per
# module LIB_<m> (its archive) and DEPS_<m> (its LINK_LIBRARIES,
# comma-separated).
cmake_minimum_required(VERSION 3.16)

set(_prefix_PkgConfig::CURL "curl_")
set(_prefix_PkgConfig::CJSON "cJSON_")
set(_prefix_PkgConfig::LWS "lws_")
set(_prefix_PkgConfig::PNG "png_")
set(_prefix_PkgConfig::TURBOJPEG "tj")
set(_prefix_PkgConfig::PCRE2 "pcre2_")
set(_prefix_PkgConfig::DEFLATE "libdeflate_")

# _syms(<out> <archive> <nm flags...>): the symbol names nm lists, one
# "\n"-delimited string (with a leading and trailing "\n").
function(_syms out archive)
    execute_process(COMMAND ${NM} -P ${ARGN} ${archive} OUTPUT_VARIABLE _o ERROR_QUIET
                    RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
        message(FATAL_ERROR "layering: ${NM} failed on ${archive}")
    endif()
    # POSIX format: "name type [value size]"; archive member headers end in ':'.
    string(REGEX REPLACE "([^\n ]+) [A-Za-z][^\n]*" "\\1" _o "${_o}")
    set(${out} "\n${_o}\n" PARENT_SCOPE)
endfunction()

string(REPLACE "," ";" _modules "${MODULES}")
set(_bad "")
set(_checked 0)
foreach(_m ${_modules})
    _syms(_undef ${LIB_${_m}} -u)
    string(REPLACE "," ";" _deps "${DEPS_${_m}}")
    foreach(_d ${_deps})
        string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" _d "${_d}")
        set(_used "")
        set(_to "")
        if(_d MATCHES "^fovea_([a-z]+)$")
            set(_to ${CMAKE_MATCH_1})
        endif()
        if(_to AND DEFINED LIB_${_to})
            _syms(_def ${LIB_${_to}} -g --defined-only)
            string(REGEX MATCHALL "\n[^\n]+" _names "${_undef}")
            set(_used 0)
            foreach(_s ${_names})
                string(FIND "${_def}" "${_s}\n" _at)
                if(NOT _at EQUAL -1)
                    set(_used 1)
                    break()
                endif()
            endforeach()
        elseif(DEFINED _prefix_${_d})
            string(FIND "${_undef}" "\n${_prefix_${_d}}" _at)
            if(_at EQUAL -1)
                set(_used 0)
            else()
                set(_used 1)
            endif()
        endif()
        if(_used STREQUAL "0")
            list(APPEND _bad "fovea_${_m} links ${_d} but calls nothing in it")
        elseif(_used STREQUAL "1")
            math(EXPR _checked "${_checked} + 1")
        endif()
    endforeach()
endforeach()
if(_bad)
    string(REPLACE ";" "\n  " _msg "${_bad}")
    message(FATAL_ERROR "layering: dead link edge(s):\n  ${_msg}")
endif()
message(STATUS "layering: ${_checked} link edges checked, each is used")
