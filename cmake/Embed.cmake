# fovea_embed(OUT_VAR SYMBOL FILE): turns FILE into a generated C source that
# defines `const unsigned char SYMBOL[]` and `const size_t SYMBOL_len`, so JS
# probes and other assets stay real files in the tree and are still compiled
# into the binary. The generated file is appended to OUT_VAR.
function(fovea_embed out_var symbol file)
    get_filename_component(_abs "${file}" ABSOLUTE)
    set(_out "${CMAKE_CURRENT_BINARY_DIR}/embed_${symbol}.c")
    add_custom_command(
        OUTPUT "${_out}"
        COMMAND ${CMAKE_COMMAND} -DIN=${_abs} -DOUT=${_out} -DSYM=${symbol}
                -P "${PROJECT_SOURCE_DIR}/cmake/EmbedRun.cmake"
        DEPENDS "${_abs}" "${PROJECT_SOURCE_DIR}/cmake/EmbedRun.cmake"
        COMMENT "Embedding ${file}")
    set(${out_var} ${${out_var}} "${_out}" PARENT_SCOPE)
endfunction()
