# fovea_embed(OUT_VAR SYMBOL FILES): turns FILES into a generated C source
# that defines `const unsigned char SYMBOL[]` and `const size_t SYMBOL_len`, so
# JS probes and other assets stay real files in the tree and are still
# compiled into the binary. The generated file is appended to OUT_VAR. FILES
# is one file, or page-kit libraries followed by a page script joined by ','
# ("lib/kit.js,snap_probe.js"): the libraries are prepended (EmbedRun.cmake).
function(fovea_embed out_var symbol files)
    string(REPLACE "," ";" _list "${files}")
    set(_abs_list "")
    foreach(_f ${_list})
        get_filename_component(_a "${_f}" ABSOLUTE)
        list(APPEND _abs_list "${_a}")
    endforeach()
    string(REPLACE ";" "|" _in "${_abs_list}")
    set(_out "${CMAKE_CURRENT_BINARY_DIR}/embed_${symbol}.c")
    add_custom_command(
        OUTPUT "${_out}"
        COMMAND ${CMAKE_COMMAND} "-DIN=${_in}" -DOUT=${_out} -DSYM=${symbol}
                -P "${PROJECT_SOURCE_DIR}/cmake/EmbedRun.cmake"
        DEPENDS ${_abs_list} "${PROJECT_SOURCE_DIR}/cmake/EmbedRun.cmake"
        COMMENT "Embedding ${files}"
        VERBATIM)
    set(${out_var} ${${out_var}} "${_out}" PARENT_SCOPE)
endfunction()

# fovea_module(NAME [DEPS lib...] [EMBED symbol=file[,file...] ...]): the static library
# of one module folder, built from every *.c in it (so adding a file needs no
# CMake edit). A folder with no sources yet is an INTERFACE library.
function(fovea_module name)
    cmake_parse_arguments(M "" "" "DEPS;EMBED" ${ARGN})
    file(GLOB _src CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.c)
    foreach(_pair ${M_EMBED})
        string(REPLACE "=" ";" _kv ${_pair})
        list(GET _kv 0 _sym)
        list(GET _kv 1 _file)
        fovea_embed(_src ${_sym} ${_file})
    endforeach()
    if(_src)
        add_library(${name} STATIC ${_src})
        target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
        target_link_libraries(${name} PUBLIC ${M_DEPS})
    else()
        add_library(${name} INTERFACE)
        target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR})
        target_link_libraries(${name} INTERFACE ${M_DEPS})
    endif()
endfunction()
