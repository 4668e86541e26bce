# Windows installer (cpack -G NSIS), built on Windows only; steps in packaging/README.md.
# Layout: everything in the install directory, tor.exe and its DLLs next to onionvoice.exe (where
# TorLauncher looks first), Qt deployed by windeployqt, the onionvoice: URL protocol registered.
install(TARGETS ${programs} RUNTIME DESTINATION .)
if(ONIONVOICE_BUNDLE_TOR)
    install(DIRECTORY ${ONIONVOICE_TOR_BUNDLE_DIR}/ DESTINATION . USE_SOURCE_PERMISSIONS)
endif()
find_program(WINDEPLOYQT windeployqt HINTS ${Qt6_DIR}/../../../bin REQUIRED)
foreach(program IN LISTS programs)
    install(CODE "execute_process(COMMAND \"${WINDEPLOYQT}\" --release --no-translations
        --dir \"\${CMAKE_INSTALL_PREFIX}\" \"\${CMAKE_INSTALL_PREFIX}/${program}.exe\"
        COMMAND_ERROR_IS_FATAL ANY)")
endforeach()

set(CPACK_GENERATOR NSIS)
set(CPACK_NSIS_DISPLAY_NAME OnionVoice)
set(CPACK_NSIS_PACKAGE_NAME OnionVoice)
set(CPACK_NSIS_MUI_ICON ${CMAKE_CURRENT_SOURCE_DIR}/windows/onionvoice.ico)
set(CPACK_NSIS_INSTALLED_ICON_NAME onionvoice.exe)
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
set(CPACK_PACKAGE_EXECUTABLES onionvoice OnionVoice)
# onionvoice:<address>?name=… links start "onionvoice.exe <link>"; InstanceGuard hands the link to
# a running instance.
set(CPACK_NSIS_EXTRA_INSTALL_COMMANDS [=[
  WriteRegStr HKLM "Software\Classes\onionvoice" "" "URL:OnionVoice contact link"
  WriteRegStr HKLM "Software\Classes\onionvoice" "URL Protocol" ""
  WriteRegStr HKLM "Software\Classes\onionvoice\DefaultIcon" "" "$INSTDIR\onionvoice.exe,0"
  WriteRegStr HKLM "Software\Classes\onionvoice\shell\open\command" "" '"$INSTDIR\onionvoice.exe" "%1"'
]=])
set(CPACK_NSIS_EXTRA_UNINSTALL_COMMANDS [=[
  DeleteRegKey HKLM "Software\Classes\onionvoice"
]=])
