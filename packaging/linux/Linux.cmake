# Linux install layout (Debian package and self-contained bundle): everything that runs lives in
# lib/onionvoice/, where TorLauncher finds the bundled tor next to the executables; bin/ holds
# symlinks (applicationDirPath() follows them, so tor is still found next to the real file).
include(GNUInstallDirs)
set(app_id org.onionvoice.OnionVoice)
set(libdir lib/onionvoice)
set(gzipped "")

# install_gzipped(SOURCE DESTINATION): Debian wants man pages and changelogs compressed.
function(install_gzipped source destination)
    get_filename_component(name ${source} NAME)
    set(output ${CMAKE_CURRENT_BINARY_DIR}/gz/${name}.gz)
    add_custom_command(OUTPUT ${output}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/gz
        COMMAND sh -c "gzip -9n -c \"$1\" > \"$2\"" gzip ${source} ${output}
        DEPENDS ${source} VERBATIM)
    install(FILES ${output} DESTINATION ${destination})
    set(gzipped ${gzipped} ${output} PARENT_SCOPE)
endfunction()

install(TARGETS ${programs} RUNTIME DESTINATION ${libdir})
if(ONIONVOICE_BUNDLE_TOR)
    install(DIRECTORY ${ONIONVOICE_TOR_BUNDLE_DIR}/ DESTINATION ${libdir} USE_SOURCE_PERMISSIONS)
endif()
foreach(program IN LISTS programs)
    set(link ${CMAKE_CURRENT_BINARY_DIR}/bin/${program})
    file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/bin)
    file(CREATE_LINK ../${libdir}/${program} ${link} SYMBOLIC)
    install(FILES ${link} DESTINATION ${CMAKE_INSTALL_BINDIR})
    install_gzipped(${CMAKE_CURRENT_SOURCE_DIR}/linux/${program}.1 ${CMAKE_INSTALL_MANDIR}/man1)
endforeach()

install(FILES linux/${app_id}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
configure_file(linux/${app_id}.metainfo.xml ${CMAKE_CURRENT_BINARY_DIR}/${app_id}.metainfo.xml
               @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${app_id}.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)

# Icons: the SVG, and PNGs rendered from it at build time.
find_program(RSVG_CONVERT rsvg-convert REQUIRED)
set(icon_svg ${CMAKE_CURRENT_SOURCE_DIR}/icons/onionvoice.svg)
install(FILES ${icon_svg} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
        RENAME ${app_id}.svg)
set(pngs "")
foreach(size 16 32 48 64 128 256 512)
    set(png ${CMAKE_CURRENT_BINARY_DIR}/icons/${size}/${app_id}.png)
    add_custom_command(OUTPUT ${png}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/icons/${size}
        COMMAND ${RSVG_CONVERT} -w ${size} -h ${size} -o ${png} ${icon_svg}
        DEPENDS ${icon_svg} VERBATIM)
    list(APPEND pngs ${png})
    install(FILES ${png} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps)
endforeach()
add_custom_target(icons ALL DEPENDS ${pngs})

# Debian documentation: our copyright, and the licences of the bundled tor files as shipped by
# their Debian packages (the Debian package name and version are in tor-bundle/manifest).
install(FILES linux/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/onionvoice)
foreach(package tor tor-geoipdb obfs4proxy snowflake-client)
    if(EXISTS /usr/share/doc/${package}/copyright)
        install(FILES /usr/share/doc/${package}/copyright
                DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/onionvoice/bundled RENAME ${package})
    endif()
endforeach()
install_gzipped(${CMAKE_CURRENT_SOURCE_DIR}/linux/changelog ${CMAKE_INSTALL_DATADIR}/doc/onionvoice)
add_custom_target(gzipped_docs ALL DEPENDS ${gzipped})

# The Debian package. Dependencies come from dpkg-shlibdeps over every installed ELF file, the
# bundled tor included; the system's tor is neither needed nor used.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Qt's own strings (Cancel, Yes/No in standard dialogs) in the user's language: Debian ships
# qtbase_de.qm and the others there, not with libqt6core6; without it they stayed English in the
# German app. Recommended, not required: the app works in English without it. Likewise Qt's
# Wayland platform plugin: without it, the app runs through XWayland on a Wayland desktop (GNOME's
# default), blurred under fractional scaling, and a second start's request to raise the running
# window meets the compositor's focus-stealing rules as an X client.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-translations-l10n, qt6-wayland")
