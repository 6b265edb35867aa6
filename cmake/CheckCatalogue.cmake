# The i18n.catalogue_complete test: lupdate reads the sources into a copy of a catalogue, and every
# message must be translated — a string added to the interface without its translation fails here,
# not in front of a class. With -DPLURALS_ONLY=ON (the English catalogue) only messages with a
# count (%n) are read, and each must have its singular and plural forms. Usage:
#   cmake -DLUPDATE=<lupdate> -DSOURCE_DIR=<project> -DCATALOGUE=<.ts> -DWORK_DIR=<dir>
#         [-DPLURALS_ONLY=ON] -P CheckCatalogue.cmake
get_filename_component(name "${CATALOGUE}" NAME)
file(MAKE_DIRECTORY "${WORK_DIR}")
set(copy "${WORK_DIR}/${name}")
set(plurals_only "")
set(fewest 300)
if(PLURALS_ONLY)
    set(plurals_only -pluralonly)
    set(fewest 10)
endif()
file(COPY_FILE "${CATALOGUE}" "${copy}")
execute_process(
    COMMAND "${LUPDATE}" -I "${SOURCE_DIR}/src" "${SOURCE_DIR}/src/app" "${SOURCE_DIR}/src/render"
            "${SOURCE_DIR}/ui" -ts "${copy}" -no-obsolete -locations none ${plurals_only}
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "lupdate failed (${status}): ${errors}")
endif()
file(READ "${copy}" text)
string(REGEX MATCHALL "<message[ >]" messages "${text}")
string(REGEX MATCHALL "type=\"unfinished\"|<numerusform></numerusform>" unfinished "${text}")
list(LENGTH messages total)
list(LENGTH unfinished missing)
if(total LESS fewest)
    message(FATAL_ERROR "${name}: lupdate found only ${total} messages; the sources were not read")
endif()
if(missing GREATER 0)
    string(REGEX MATCHALL "<source>[^<]*</source>[ \n]*(<[a-z]*comment>[^<]*</[a-z]*comment>[ \n]*)*<translation type=\"unfinished\"" lines "${text}")
    message(FATAL_ERROR "${name}: ${missing} of ${total} messages are untranslated "
                        "(cmake --build build/dev --target update_translations, then translate):\n${lines}")
endif()
message(STATUS "${name}: all ${total} messages translated")
