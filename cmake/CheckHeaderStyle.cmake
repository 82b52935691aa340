# cmake/CheckHeaderStyle.cmake: one comment style for public headers (ctest
# `header_style`; run by hand with `cmake -DROOT=<repo> -P cmake/CheckHeaderStyle.cmake`).
#
# Prototype comments are plain sentences in the style of cdp/cdp.h: what the
# function does, who owns what, which thread may call it and how it fails,
# without labels. Fails, naming file and line, when any header (public or
# *_int.h) of a product folder below, at any depth, contains one of the old
# labels "Purpose:", "Ownership:" or "Thread:", so the second style cannot
# creep back in. Paragraph leads such as "Threads:" or "Failure model:" in a
# header's opening comment are prose, not labels, and stay allowed.
cmake_minimum_required(VERSION 3.16)
if(NOT ROOT)
    message(FATAL_ERROR "usage: cmake -DROOT=<repo> -P CheckHeaderStyle.cmake")
endif()

# Every module folder of the product (a folder absent from ROOT is skipped).
set(_dirs agent base cascade cdp image model motion perception record serve snapper tools)
set(_files "")
foreach(_d ${_dirs})
    file(GLOB_RECURSE _h ${ROOT}/${_d}/*.h)
    list(APPEND _files ${_h})
endforeach()
list(SORT _files)

set(_bad "")
set(_n 0)
foreach(_f ${_files})
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
        if(_l MATCHES "(Purpose|Ownership|Thread):")
            list(APPEND _bad "${_rel}:${_ln}: \"${CMAKE_MATCH_1}:\" label: write the comment as plain sentences (see cdp/cdp.h)")
        endif()
    endforeach()
endforeach()

if(_n EQUAL 0)
    message(FATAL_ERROR "header_style: no header found under ${ROOT} (wrong ROOT?)")
endif()
if(_bad)
    list(LENGTH _bad _nb)
    string(REPLACE ";" "\n  " _out "${_bad}")
    message(FATAL_ERROR "header_style: ${_nb} problem(s) in ${_n} headers:\n  ${_out}")
endif()
message(STATUS "header_style: ${_n} headers, one comment style")
