# macOS disk image (cpack -G DragNDrop), built on macOS only; steps in packaging/README.md.
# Layout: OnionVoice.app with tor, its dylibs and geoip files in Contents/MacOS next to the
# executable (where TorLauncher looks first), Qt deployed by macdeployqt, and the onionvoice: URL
# scheme declared in Info.plist.
if(TARGET onionvoice)
    set_target_properties(onionvoice PROPERTIES
        MACOSX_BUNDLE ON
        OUTPUT_NAME OnionVoice
        MACOSX_BUNDLE_INFO_PLIST ${CMAKE_CURRENT_SOURCE_DIR}/macos/Info.plist.in
        MACOSX_BUNDLE_GUI_IDENTIFIER org.onionvoice.OnionVoice
        MACOSX_BUNDLE_BUNDLE_VERSION ${PROJECT_VERSION})
    install(TARGETS onionvoice BUNDLE DESTINATION .)
    install(FILES macos/onionvoice.icns DESTINATION OnionVoice.app/Contents/Resources)
    set(macos_dir OnionVoice.app/Contents/MacOS)
    if(TARGET onionvoice-cli)
        install(TARGETS onionvoice-cli RUNTIME DESTINATION ${macos_dir})
    endif()
    if(ONIONVOICE_BUNDLE_TOR)
        install(DIRECTORY ${ONIONVOICE_TOR_BUNDLE_DIR}/ DESTINATION ${macos_dir}
                USE_SOURCE_PERMISSIONS)
    endif()
    find_program(MACDEPLOYQT macdeployqt HINTS ${Qt6_DIR}/../../../bin REQUIRED)
    install(CODE "execute_process(COMMAND \"${MACDEPLOYQT}\"
        \"\${CMAKE_INSTALL_PREFIX}/OnionVoice.app\"
        \"-executable=\${CMAKE_INSTALL_PREFIX}/${macos_dir}/onionvoice-cli\"
        COMMAND_ERROR_IS_FATAL ANY)")
endif()

set(CPACK_GENERATOR DragNDrop)
set(CPACK_DMG_VOLUME_NAME OnionVoice)
set(CPACK_DMG_FORMAT UDZO)
