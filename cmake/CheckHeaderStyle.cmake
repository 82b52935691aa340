# cmake/CheckHeaderStyle.cmake: one comment style for public headers (ctest
# `header_style`; run by hand with `cmake -DROOT=<repo> -P cmake/CheckHeaderStyle.cmake`).
#
# Prototype comments are plain sentences in the style of cdp/cdp.h: what the
# function does, who owns what, which thread may call it and how it fails,
# without labels. Fails, naming file and line, when a public header (not
# *_int.h) of the folders below contains the old "Purpose:" label, so the
# second style cannot creep back in.
cmake_minimum_required(VERSION 3.16)
if(NOT ROOT)
    message(FATAL_ERROR "usage: cmake -DROOT=<repo> -P CheckHeaderStyle.cmake")
endif()

set(_dirs agent/session agent/plan agent/script model image perception)
set(_files "")
foreach(_d ${_dirs})
    file(GLOB _h ${ROOT}/${_d}/*.h)
    list(APPEND _files ${_h})
endforeach()
list(APPEND _files ${ROOT}/tools/cli.h)

set(_bad "")
set(_n 0)
foreach(_f ${_files})
    if(_f MATCHES "_int\\.h$")
        continue()
    endif()
    if(NOT EXISTS ${_f})
        continue()
    endif()
    math(EXPR _n "${_n} + 1")
    file(RELATIVE_PATH _rel ${ROOT} ${_f})
    # file(STRINGS) drops line numbers, so count lines by hand.
    file(READ ${_f} _text)
    # Characters that would split or join list items are blanked first.
    string(REPLACE ";" "," _text "${_text}")
    string(REPLACE "[" " " _text "${_text}")
    string(REPLACE "]" " " _text "${_text}")
    string(REPLACE "\\" " " _text "${_text}")
    string(REPLACE "\n" ";" _lines "${_text}")
    set(_ln 0)
    foreach(_l IN LISTS _lines)
        math(EXPR _ln "${_ln} + 1")
        if(_l MATCHES "Purpose:")
            list(APPEND _bad "${_rel}:${_ln}: \"Purpose:\" label: write the comment as plain sentences (see cdp/cdp.h)")
        endif()
    endforeach()
endforeach()

if(_n EQUAL 0)
    message(FATAL_ERROR "header_style: no header found under ${ROOT} (wrong ROOT?)")
endif()
if(_bad)
    list(LENGTH _bad _nb)
    string(REPLACE ";" "\n  " _out "${_bad}")
    message(FATAL_ERROR "header_style: ${_nb} problem(s) in ${_n} public headers:\n  ${_out}")
endif()
message(STATUS "header_style: ${_n} public headers, one comment style")
