<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>AppSettings</name>
    <message>
        <location filename="../AppSettings.cpp" line="+31"/>
        <source>The saved choice of who may call (&quot;%1&quot;) is not one OnionVoice knows: unknown callers are refused until you choose in Settings.</source>
        <translation>Die gespeicherte Wahl, wer anrufen darf („%1“), kennt OnionVoice nicht: unbekannte Anrufer werden abgewiesen, bis Sie in den Einstellungen wählen.</translation>
    </message>
    <message>
        <location filename="../../core/call/SavedAppChoices.cpp" line="+15"/>
        <location line="+21"/>
        <source>%1 cannot be read</source>
        <translation>%1 kann nicht gelesen werden</translation>
    </message>
    <message>
        <location line="-12"/>
        <source>%1 is missing, and settings that could not be read were set aside as %2: which of them apply is not known</source>
        <translation>%1 fehlt, und Einstellungen, die nicht gelesen werden konnten, wurden als %2 beiseitegelegt: Welche davon gelten, ist nicht bekannt</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>%1 is damaged</source>
        <translation>%1 ist beschädigt</translation>
    </message>
    <message>
        <location filename="../AppSettings.cpp" line="+40"/>
        <source>%1 cannot be written</source>
        <translation>%1 kann nicht geschrieben werden</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 is not a settings file</source>
        <translation>%1 ist keine Einstellungsdatei</translation>
    </message>
</context>
<context>
    <name>CallEngine</name>
    <message>
        <location filename="../../core/call/CallEngineOutgoing.cpp" line="+40"/>
        <source>This is your own ID: you cannot call yourself.</source>
        <translation>Das ist Ihre eigene ID: Sie können sich nicht selbst anrufen.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>A call is already under way.</source>
        <translation>Es läuft bereits ein Anruf.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Cannot call: %1</source>
        <translation>Anruf nicht möglich: %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Tor is not ready yet.</source>
        <translation>Tor ist noch nicht bereit.</translation>
    </message>
    <message>
        <location filename="../../core/call/CallEngine.cpp" line="+91"/>
        <source>OnionVoice did not find its identity (identity.key) in %1, though it has run from there before, and made a new one: your address is now %2, and contacts who have the old one cannot reach you. If you have a copy of identity.key, quit OnionVoice, put it back into %1 and start again.</source>
        <translation>OnionVoice hat seine Identität (identity.key) in %1 nicht gefunden, obwohl es dort schon gelaufen ist, und eine neue angelegt: Ihre Adresse ist jetzt %2, und Kontakte mit der alten Adresse erreichen Sie nicht. Wenn Sie eine Kopie von identity.key haben, beenden Sie OnionVoice, legen Sie sie zurück nach %1 und starten Sie neu.</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Some contacts could not be read, so callers who are not in your contacts are refused until you choose again whether they may ring (Settings: &quot;Refuse calls from people not in my contacts&quot;).</source>
        <translation>Einige Kontakte konnten nicht gelesen werden. Anrufer, die nicht in Ihren Kontakten sind, werden deshalb abgewiesen, bis Sie erneut festlegen, ob sie anrufen dürfen (Einstellungen: „Anrufe von Menschen außerhalb meiner Kontakte abweisen“).</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The one-way hotline cannot be limited to contacts.</source>
        <translation>Die Einweg-Hotline kann nicht auf Kontakte beschränkt werden.</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Only contacts may call, and no contact has an access key yet: nobody can reach you until you share a link with an access key (Share…).</source>
        <translation>Nur Kontakte dürfen anrufen, und noch kein Kontakt hat einen Zugangsschlüssel: Niemand kann Sie erreichen, bis Sie einen Link mit Zugangsschlüssel weitergeben (Teilen…).</translation>
    </message>
    <message>
        <location line="+208"/>
        <source>The microphone stopped working.</source>
        <translation>Das Mikrofon funktioniert nicht mehr.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The speaker stopped working.</source>
        <translation>Der Lautsprecher funktioniert nicht mehr.</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Audio could not start: %1</source>
        <translation>Audio konnte nicht starten: %1</translation>
    </message>
    <message>
        <location line="-320"/>
        <source>no audio device</source>
        <translation>kein Audiogerät</translation>
    </message>
</context>
<context>
    <name>CallJudgement</name>
    <message>
        <location filename="../CallRating.cpp" line="+51"/>
        <source>not yet known</source>
        <translation>noch unbekannt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>good</source>
        <translation>gut</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>fair</source>
        <translation>mittel</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>poor</source>
        <translation>schlecht</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>healthy</source>
        <translation>gesund</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>slow</source>
        <translation>langsam</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>bad</source>
        <translation>schlecht</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>idle (in reserve)</source>
        <translation>untätig (in Reserve)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>joining</source>
        <translation>verbindet</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>down</source>
        <translation>getrennt</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Network: no link to the other side is open; reconnecting.</source>
        <translation>Netz: keine Verbindung zur Gegenseite ist offen; verbinde neu.</translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>Other side: nothing has arrived for two seconds although %n link(s) are open; their app or their connection may have stopped.</source>
        <translation>
            <numerusform>Gegenseite: seit zwei Sekunden ist nichts angekommen, obwohl %n Verbindung offen ist; deren App oder Verbindung ist vielleicht ausgefallen.</numerusform>
            <numerusform>Gegenseite: seit zwei Sekunden ist nichts angekommen, obwohl %n Verbindungen offen sind; deren App oder Verbindung ist vielleicht ausgefallen.</numerusform>
        </translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Network: frames arrive late or get lost (%1 % late or lost, p99 %2 ms).</source>
        <translation>Netz: Frames kommen zu spät oder gehen verloren (%1 % zu spät oder verloren, p99 %2 ms).</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>This computer: the speaker ran dry for %L1 ms in the last two seconds, since OnionVoice fell behind; other programs may be keeping the computer busy.</source>
        <translation>Dieser Computer: Dem Lautsprecher ging in den letzten zwei Sekunden %L1 ms lang der Ton aus, weil OnionVoice nicht nachkam; womöglich lasten andere Programme den Computer aus.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Network: only %1 of %2 links are open; the call holds on the rest.</source>
        <translation>Netz: nur %1 von %2 Verbindungen sind offen; das Gespräch läuft über die übrigen weiter.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Network and other side: no trouble.</source>
        <translation>Netz und Gegenseite: keine Probleme.</translation>
    </message>
</context>
<context>
    <name>CallTypes</name>
    <message>
        <location filename="../../core/call/CallTypes.cpp" line="+22"/>
        <source>not ended</source>
        <translation>nicht beendet</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>you hung up</source>
        <translation>Sie haben aufgelegt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the other side hung up</source>
        <translation>die Gegenseite hat aufgelegt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>you rejected the call</source>
        <translation>Sie haben den Anruf abgelehnt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the call was rejected</source>
        <translation>der Anruf wurde abgelehnt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>busy</source>
        <translation>besetzt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no answer</source>
        <translation>keine Antwort</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the caller hung up before the call was answered</source>
        <translation>der Anrufer hat aufgelegt, bevor der Anruf angenommen wurde</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the call was not accepted</source>
        <translation>der Anruf wurde nicht angenommen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the other side could not be reached</source>
        <translation>die Gegenseite war nicht erreichbar</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the connection was lost</source>
        <translation>die Verbindung ist abgebrochen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the other side sent invalid data</source>
        <translation>die Gegenseite hat ungültige Daten gesendet</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>audio could not start</source>
        <translation>Audio konnte nicht starten</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+16"/>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <location line="-10"/>
        <source>idle</source>
        <translation>bereit</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>dialing</source>
        <translation>wählt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ringing</source>
        <translation>klingelt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>active</source>
        <translation>aktiv</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ended</source>
        <translation>beendet</translation>
    </message>
</context>
<context>
    <name>ContactActivity</name>
    <message>
        <location filename="../ContactActivity.cpp" line="+126"/>
        <source>calling…</source>
        <translation>ruft an…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ringing…</source>
        <translation>klingelt…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>calling you…</source>
        <translation>ruft Sie an…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>in call</source>
        <translation>im Gespräch</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>last call %1, %2</source>
        <translation>letzter Anruf %1, %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>missed call %1</source>
        <translation>Anruf verpasst %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>you declined %1</source>
        <translation>von Ihnen abgelehnt %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 %2</source>
        <comment>why the call did not get through, then when</comment>
        <translation>%1 %2</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>no answer</source>
        <translation>keine Antwort</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>declined</source>
        <translation>abgelehnt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>busy</source>
        <translation>besetzt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>refused</source>
        <translation>abgewiesen</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>connection lost</source>
        <translation>Verbindung verloren</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>audio failed</source>
        <translation>Audio-Fehler</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>not reached</source>
        <translation>nicht erreicht</translation>
    </message>
</context>
<context>
    <name>ContactBook</name>
    <message>
        <location filename="../../core/contacts/ContactBook.cpp" line="+27"/>
        <source>An access key has %1 bytes, not %2.</source>
        <translation>Ein Zugangsschlüssel hat %1 Bytes, nicht %2.</translation>
    </message>
    <message>
        <location line="+91"/>
        <source>The contact book %1 cannot be read: %2</source>
        <translation>Die Kontaktliste %1 kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>The contact book %1 was written by a newer version of OnionVoice (format %2; this version reads format %3). It is left as it is, and contacts cannot be changed until that version is used again.</source>
        <translation>Die Kontaktliste %1 wurde von einer neueren Version von OnionVoice geschrieben (Format %2; diese Version liest Format %3). Sie bleibt unverändert, und Kontakte können erst wieder geändert werden, wenn jene Version verwendet wird.</translation>
    </message>
    <message>
        <location line="+55"/>
        <source>The contact book %1 is damaged and could not be repaired (%2); it is left as it is.</source>
        <translation>Die Kontaktliste %1 ist beschädigt und konnte nicht repariert werden (%2); sie bleibt unverändert.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>no copy could be kept aside</source>
        <translation>es konnte keine Kopie beiseitegelegt werden</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>The contact book was damaged. It was kept as %1; %2 contacts were read, %3 damaged ones kept without access, %4 could not be read.</source>
        <translation>Die Kontaktliste war beschädigt. Sie wurde als %1 aufbewahrt; %2 Kontakte wurden gelesen, %3 beschädigte ohne Zugang behalten, %4 konnten nicht gelesen werden.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>The contact book was damaged and none of it could be read. It was kept as %1.</source>
        <translation>Die Kontaktliste war beschädigt, und nichts davon konnte gelesen werden. Sie wurde als %1 aufbewahrt.</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>The contact book has not been read, so it is not overwritten.</source>
        <translation>Die Kontaktliste wurde nicht gelesen und wird daher nicht überschrieben.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The contact book file could not be read, so it is not overwritten.</source>
        <translation>Die Datei der Kontaktliste konnte nicht gelesen werden und wird daher nicht überschrieben.</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>the data directory %1 is gone (was it unmounted?)</source>
        <translation>das Datenverzeichnis %1 ist verschwunden (wurde es ausgehängt?)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The contact book could not be saved: %1.</source>
        <translation>Die Kontaktliste konnte nicht gespeichert werden: %1.</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>This address is already in your contacts.</source>
        <translation>Diese Adresse ist bereits in Ihren Kontakten.</translation>
    </message>
</context>
<context>
    <name>ContactInputCheck</name>
    <message>
        <location filename="../ContactInput.cpp" line="+38"/>
        <source>Paste the address or the onionvoice: link of the person you want to add.</source>
        <translation>Fügen Sie die Adresse oder den onionvoice:-Link der Person ein, die Sie hinzufügen möchten.</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>This is your own ID. Paste the ID of the person you want to call.</source>
        <translation>Das ist Ihre eigene ID. Fügen Sie die ID der Person ein, die Sie anrufen möchten.</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>&quot;%1&quot; is already in your contacts. This link brings a new access key for calling them: Add takes it.</source>
        <translation>„%1“ ist bereits in Ihren Kontakten. Dieser Link bringt einen neuen Zugangsschlüssel für Anrufe bei diesem Kontakt: „Hinzufügen“ übernimmt ihn.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>This address is already in your contacts as &quot;%1&quot;.</source>
        <translation>Diese Adresse ist bereits als „%1“ in Ihren Kontakten.</translation>
    </message>
    <message>
        <location line="-10"/>
        <source>(no name)</source>
        <translation>(kein Name)</translation>
    </message>
</context>
<context>
    <name>ContactName</name>
    <message>
        <location filename="../../core/contacts/ContactName.cpp" line="+12"/>
        <source>The name is longer than %1 characters.</source>
        <translation>Der Name ist länger als %1 Zeichen.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>The name contains control characters.</source>
        <translation>Der Name enthält Steuerzeichen.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The name contains invisible formatting characters.</source>
        <translation>Der Name enthält unsichtbare Formatierungszeichen.</translation>
    </message>
</context>
<context>
    <name>ContactUri</name>
    <message>
        <location filename="../../core/contacts/ContactUri.cpp" line="+47"/>
        <source>A contact link starts with &quot;onionvoice:&quot;.</source>
        <translation>Ein Kontaktlink beginnt mit „onionvoice:“.</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>The access key in the link is damaged.</source>
        <translation>Der Zugangsschlüssel im Link ist beschädigt.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The link has an unknown part &quot;%1&quot;.</source>
        <translation>Der Link hat einen unbekannten Teil „%1“.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The link has an unknown part.</source>
        <translation>Der Link hat einen unbekannten Teil.</translation>
    </message>
</context>
<context>
    <name>DataDirectoryLock</name>
    <message>
        <location filename="../../app/instance/DataDirectoryLock.cpp" line="+18"/>
        <source>cannot create the data directory %1</source>
        <translation>das Datenverzeichnis %1 kann nicht angelegt werden</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>cannot create the lock file in %1</source>
        <translation>die Sperrdatei in %1 kann nicht angelegt werden</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>the data directory %1 is in use by %2 (process %3): one OnionVoice per data directory</source>
        <translation>das Datenverzeichnis %1 wird von %2 (Prozess %3) benutzt: ein OnionVoice je Datenverzeichnis</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the data directory %1 is in use by another OnionVoice</source>
        <translation>das Datenverzeichnis %1 wird von einem anderen OnionVoice benutzt</translation>
    </message>
</context>
<context>
    <name>InstanceSocketPath</name>
    <message>
        <location filename="../../app/instance/InstanceSocketPath.cpp" line="+26"/>
        <source>%1 is not a private directory of this user (it must be yours, with mode 0700): the socket that later starts of OnionVoice hand their links to is not put there. Remove it, or set XDG_RUNTIME_DIR, or use a shorter data directory.</source>
        <translation>%1 ist kein privates Verzeichnis dieses Benutzers (es muss Ihnen gehören, mit Modus 0700): Der Socket, an den spätere Starts von OnionVoice ihre Links übergeben, wird dort nicht angelegt. Entfernen Sie es, setzen Sie XDG_RUNTIME_DIR oder wählen Sie ein kürzeres Datenverzeichnis.</translation>
    </message>
</context>
<context>
    <name>OnionAddress</name>
    <message>
        <location filename="../../core/tor/OnionAddress.cpp" line="+88"/>
        <source>The address is empty.</source>
        <translation>Die Adresse ist leer.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Character %1 (&quot;%2&quot;) cannot appear in an onion address: only lower-case letters a-z and digits 2-7 can.</source>
        <translation>Zeichen %1 („%2“) kann in einer Onion-Adresse nicht vorkommen: nur Kleinbuchstaben a–z und Ziffern 2–7.</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>An onion address has %1 characters; this one has %2.</source>
        <translation>Eine Onion-Adresse hat %1 Zeichen, diese hat %2.</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>This is an onion address of version %1; only version 3 addresses are supported.</source>
        <translation>Dies ist eine Onion-Adresse der Version %1; nur Adressen der Version 3 werden unterstützt.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The address has a typo: its checksum does not match.</source>
        <translation>Die Adresse enthält einen Tippfehler: ihre Prüfsumme stimmt nicht.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>This is not the address of an onion service: its key is not a valid one.</source>
        <translation>Das ist keine Adresse eines Onion-Dienstes: der Schlüssel darin ist ungültig.</translation>
    </message>
</context>
<context>
    <name>OnionIdentity</name>
    <message>
        <location filename="../../core/tor/OnionIdentity.cpp" line="+97"/>
        <source>Cannot read the identity file %1: %2</source>
        <translation>Die Identitätsdatei %1 kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>The identity file %1 is not an OnionVoice identity (wrong size or header); it was left untouched.</source>
        <translation>Die Identitätsdatei %1 ist keine OnionVoice-Identität (falsche Größe oder Kopfzeile); sie wurde nicht verändert.</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Cannot create the directory %1</source>
        <translation>Das Verzeichnis %1 kann nicht angelegt werden</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>The identity file %1 exists already; it was left untouched.</source>
        <translation>Die Identitätsdatei %1 existiert bereits; sie wurde nicht verändert.</translation>
    </message>
    <message>
        <location line="-39"/>
        <source>Cannot write the identity file %1: %2</source>
        <translation>Die Identitätsdatei %1 kann nicht geschrieben werden: %2</translation>
    </message>
</context>
<context>
    <name>PortAudioBackend</name>
    <message>
        <location filename="../../core/media/PortAudioBackend.cpp" line="+86"/>
        <source>the sound system could not start: %1</source>
        <translation>das Audiosystem konnte nicht starten: %1</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>audio devices cannot be refreshed while a call uses them</source>
        <translation>Audiogeräte können nicht neu eingelesen werden, solange ein Anruf sie nutzt</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>the sound system could not restart: %1</source>
        <translation>das Audiosystem konnte nicht neu starten: %1</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>no microphone found</source>
        <translation>kein Mikrofon gefunden</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no speaker found</source>
        <translation>kein Lautsprecher gefunden</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>microphone &quot;%1&quot; not found</source>
        <translation>Mikrofon „%1“ nicht gefunden</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>speaker &quot;%1&quot; not found</source>
        <translation>Lautsprecher „%1“ nicht gefunden</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>microphone &quot;%1&quot; cannot be opened: %2</source>
        <translation>Mikrofon „%1“ lässt sich nicht öffnen: %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>speaker &quot;%1&quot; cannot be opened: %2</source>
        <translation>Lautsprecher „%1“ lässt sich nicht öffnen: %2</translation>
    </message>
    <message>
        <location line="+37"/>
        <source>the audio devices opened but would not run: %1</source>
        <translation>die Audiogeräte ließen sich öffnen, liefen aber nicht an: %1</translation>
    </message>
</context>
<context>
    <name>PortAudioErrors</name>
    <message>
        <location filename="../../core/media/PortAudioErrors.cpp" line="+21"/>
        <source>the device does not exist (any more)</source>
        <translation>das Gerät gibt es nicht (mehr)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the device is unavailable; another program may be using it</source>
        <translation>das Gerät ist nicht verfügbar; vielleicht nutzt es ein anderes Programm</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the device has no mono channel</source>
        <translation>das Gerät hat keinen Mono-Kanal</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the device cannot run at 48 kHz</source>
        <translation>das Gerät kann nicht mit 48 kHz laufen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>out of memory</source>
        <translation>zu wenig Arbeitsspeicher</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the device did not answer in time</source>
        <translation>das Gerät hat nicht rechtzeitig geantwortet</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>the sound system failed</source>
        <translation>das Audiosystem hat versagt</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the sound system failed: %1</source>
        <translation>das Audiosystem hat versagt: %1</translation>
    </message>
</context>
<context>
    <name>QrCode</name>
    <message>
        <location filename="../QrCode.cpp" line="+54"/>
        <source>The file is not an image OnionVoice can read.</source>
        <translation>Die Datei ist kein Bild, das OnionVoice lesen kann.</translation>
    </message>
    <message>
        <location line="+18"/>
        <location line="+8"/>
        <source>No QR code was found in the image.</source>
        <translation>Im Bild wurde kein QR-Code gefunden.</translation>
    </message>
</context>
<context>
    <name>SecurityPreset</name>
    <message>
        <location filename="../../core/tor/SecurityPreset.cpp" line="+11"/>
        <source>Standard</source>
        <translation>Standard</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Both you and the person you call stay anonymous, with Tor&apos;s usual protections; calls may have more delay.</source>
        <translation>Sie und Ihr Gesprächspartner bleiben anonym, mit dem üblichen Schutz von Tor; Anrufe können mehr Verzögerung haben.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>More guards</source>
        <translation>Mehr Guards</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Calls get less delay because Tor spreads them over %1 entry relays instead of one or two, but each extra entry relay is another chance that an attacker&apos;s relay can watch you.</source>
        <translation>Anrufe haben weniger Verzögerung, weil Tor sie auf %1 Eingangsrelais statt auf ein oder zwei verteilt, doch jedes zusätzliche Eingangsrelais ist eine weitere Gelegenheit, dass ein Relais eines Angreifers Sie beobachten kann.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>One-way hotline</source>
        <translation>Einweg-Hotline</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Calls to you are faster because your side uses a single relay, but you are not anonymous: anyone can find where your hotline runs. People who call you stay anonymous.</source>
        <translation>Anrufe bei Ihnen sind schneller, weil Ihre Seite nur ein Relais nutzt, doch Sie sind nicht anonym: Jeder kann herausfinden, wo Ihre Hotline läuft. Wer Sie anruft, bleibt anonym.</translation>
    </message>
</context>
<context>
    <name>ServiceHost</name>
    <message>
        <location filename="../../core/call/ServiceHost.cpp" line="+42"/>
        <source>Cannot listen on 127.0.0.1: %1</source>
        <translation>Auf 127.0.0.1 kann nicht gelauscht werden: %1</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Cannot listen for tor: %1</source>
        <translation>Für tor kann nicht gelauscht werden: %1</translation>
    </message>
</context>
<context>
    <name>StartFailure</name>
    <message>
        <location filename="../../app/gui/StartFailure.cpp" line="+21"/>
        <source>OnionVoice</source>
        <translation>OnionVoice</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>OnionVoice could not start: %1</source>
        <translation>OnionVoice konnte nicht starten: %1</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <location filename="../../app/gui/main.cpp" line="+49"/>
        <source>Anonymous voice calls over Tor onion services.</source>
        <translation>Anonyme Sprachanrufe über Tor-Onion-Dienste.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Check Qt, tor, audio and the window; print one JSON object; exit 0 when all is well.</source>
        <translation>Qt, tor, Audio und das Fenster prüfen; ein JSON-Objekt ausgeben; Exit-Status 0, wenn alles in Ordnung ist.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Keep identity, contacts and settings in DIR (default: %1, shared with onionvoice-cli).</source>
        <translation>Identität, Kontakte und Einstellungen in DIR ablegen (Standard: %1, gemeinsam mit onionvoice-cli).</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Use the private Tor network started by tests/testnet (testnet.py up DIR).</source>
        <translation>Das private Tor-Netz von tests/testnet verwenden (testnet.py up DIR).</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Add this onionvoice: link to the contacts.</source>
        <translation>Diesen onionvoice:-Link zu den Kontakten hinzufügen.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Use a 48 kHz WAV file as the microphone.</source>
        <translation>Eine 48-kHz-WAV-Datei als Mikrofon verwenden.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>With --play: record what is heard to a WAV file.</source>
        <translation>Mit --play: das Gehörte in eine WAV-Datei aufnehmen.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>An onionvoice: link to add as a contact.</source>
        <translation>Ein onionvoice:-Link, der als Kontakt hinzugefügt wird.</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>--testnet %1: %2</source>
        <translation>--testnet %1: %2</translation>
    </message>
</context>
<context>
    <name>onionvoice::app</name>
    <message>
        <location filename="../../app/TestNetworkTorrc.h" line="+29"/>
        <source>cannot read %1 (%2)</source>
        <translation>%1 kann nicht gelesen werden (%2)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no network directory</source>
        <translation>kein Netzwerkverzeichnis</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>cannot inspect %1</source>
        <translation>%1 kann nicht geprüft werden</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 belongs to another user; refusing to put its lines into tor&apos;s configuration</source>
        <translation>%1 gehört einem anderen Benutzer; seine Zeilen werden nicht in die Konfiguration von tor übernommen</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1 can be changed by other users (mode %2); refusing to put its lines into tor&apos;s configuration (chmod go-w)</source>
        <translation>%1 kann von anderen Benutzern geändert werden (Modus %2); seine Zeilen werden nicht in die Konfiguration von tor übernommen (chmod go-w)</translation>
    </message>
</context>
<context>
    <name>onionvoice::app::InstanceGuard</name>
    <message>
        <location filename="../../app/instance/InstanceGuard.cpp" line="+46"/>
        <source>%1 is not an onionvoice: link</source>
        <translation>%1 ist kein onionvoice:-Link</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>cannot listen on %1: %2</source>
        <translation>kann nicht auf %1 horchen: %2</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>the link is too long</source>
        <translation>der Link ist zu lang</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>%1. It does not answer requests to show its window: end it, or wait for it to finish, and start OnionVoice again.</source>
        <translation>%1. Es antwortet nicht auf die Bitte, sein Fenster zu zeigen: Beenden Sie es oder warten Sie, bis es fertig ist, und starten Sie OnionVoice dann erneut.</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>the running OnionVoice refused the request</source>
        <translation>das laufende OnionVoice hat die Anfrage abgelehnt</translation>
    </message>
</context>
<context>
    <name>onionvoice::gui::GuiApp</name>
    <message>
        <location filename="../../app/gui/GuiApp.cpp" line="+236"/>
        <source>Microphone: %1 · Speaker: %2</source>
        <translation>Mikrofon: %1 · Lautsprecher: %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+1"/>
        <source>system default</source>
        <translation>Systemstandard</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>Microphone: the file %1</source>
        <translation>Mikrofon: die Datei %1</translation>
    </message>
    <message>
        <location line="-19"/>
        <source>Sound test</source>
        <translation>Tontest</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The sound test needs the sound devices: finish the call first.</source>
        <translation>Der Tontest braucht die Audiogeräte: beenden Sie zuerst das Gespräch.</translation>
    </message>
    <message>
        <location line="+32"/>
        <location line="+13"/>
        <location line="+9"/>
        <source>Settings not saved</source>
        <translation>Einstellungen nicht gespeichert</translation>
    </message>
    <message>
        <location line="-21"/>
        <source>%1 could not be moved aside to %2, so the new settings were not saved, and tor is not started.</source>
        <translation>%1 konnte nicht nach %2 verschoben werden. Die neuen Einstellungen wurden daher nicht gespeichert, und Tor wird nicht gestartet.</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>The settings could not be saved: %1. Tor is not started until they are.</source>
        <translation>Die Einstellungen konnten nicht gespeichert werden: %1. Tor wird erst gestartet, wenn sie gespeichert sind.</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The settings could not be saved: %1. They apply until OnionVoice quits; at the next start the settings saved before apply again.</source>
        <translation>Die Einstellungen konnten nicht gespeichert werden: %1. Sie gelten, bis OnionVoice beendet wird; beim nächsten Start gelten wieder die zuvor gespeicherten Einstellungen.</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Restart tor</source>
        <translation>tor neu starten</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>These settings take effect when tor restarts, which ends the current call. Restart now?</source>
        <translation>Diese Einstellungen gelten nach einem Neustart von tor, der das laufende Gespräch beendet. Jetzt neu starten?</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>The new settings take effect when the call ends.</source>
        <translation>Die neuen Einstellungen gelten, sobald das Gespräch endet.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Restarting tor to apply the new settings…</source>
        <translation>tor wird neu gestartet, um die neuen Einstellungen zu übernehmen…</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Settings not read</source>
        <translation>Einstellungen nicht gelesen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1. OnionVoice does not connect with the default settings in their place: they could undo bridges, &quot;contacts only&quot; or refusing unknown callers. Check the settings and press OK; the unreadable file is kept beside the new one.</source>
        <translation>%1. OnionVoice verbindet sich nicht mit den Standardeinstellungen an ihrer Stelle: Sie könnten Bridges, „Nur Kontakte“ oder das Abweisen unbekannter Anrufer aufheben. Prüfen Sie die Einstellungen und klicken Sie auf OK; die unlesbare Datei bleibt neben der neuen erhalten.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1. Check the settings (OnionVoice → Settings…) and press OK.</source>
        <translation>%1. Prüfen Sie die Einstellungen (OnionVoice → Einstellungen…) und klicken Sie auf OK.</translation>
    </message>
</context>
<context>
    <name>onionvoice::gui::TraceLoopback</name>
    <message>
        <location filename="../../app/gui/TraceLoopback.cpp" line="+21"/>
        <source>%1 could not be started.</source>
        <translation>%1 konnte nicht gestartet werden.</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>The recording could not be saved: %1</source>
        <translation>Die Aufnahme konnte nicht gespeichert werden: %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>onionvoice-sim and onionvoice-cli are needed next to OnionVoice.</source>
        <translation>onionvoice-sim und onionvoice-cli werden neben OnionVoice benötigt.</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>%1 failed: %2</source>
        <translation>%1 ist fehlgeschlagen: %2</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>No link trace was generated.</source>
        <translation>Es wurde kein Verbindungsverlauf erzeugt.</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>What the other side would hear could not be read: %1</source>
        <translation>Was die Gegenseite hören würde, konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Through this path: mouth to ear %1 ms (p95 %2 ms), %3 % of frames missing, MOS %4.</source>
        <translation>Über diesen Pfad: Mund zu Ohr %1 ms (p95 %2 ms), %3 % der Frames fehlen, MOS %4.</translation>
    </message>
</context>
<context>
    <name>onionvoice::tor::TorLauncher</name>
    <message>
        <location filename="../../core/tor/TorLauncherSetup.cpp" line="+140"/>
        <source>contains a line break or NUL</source>
        <translation>enthält einen Zeilenumbruch oder NUL</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>contains &apos;#&apos;</source>
        <translation>enthält „#“</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ends in a backslash (tor would join the next line to it)</source>
        <translation>endet mit einem Backslash (tor würde die nächste Zeile anhängen)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The data directory path %1.</source>
        <translation>Der Pfad des Datenverzeichnisses %1.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The tor option %1 %2.</source>
        <translation>Die tor-Option %1 %2.</translation>
    </message>
    <message>
        <location filename="../../core/tor/TorLauncher.cpp" line="+93"/>
        <source>tor could not be started: %1</source>
        <translation>tor konnte nicht gestartet werden: %1</translation>
    </message>
    <message>
        <location line="+91"/>
        <source>tor was not found (looked in: %1). Install tor or set ONIONVOICE_TOR to its path.</source>
        <translation>tor wurde nicht gefunden (gesucht in: %1). Installieren Sie tor oder setzen Sie ONIONVOICE_TOR auf seinen Pfad.</translation>
    </message>
    <message>
        <location filename="../../core/tor/TorLauncherSetup.cpp" line="-83"/>
        <source>%1 --version did not answer</source>
        <translation>%1 --version hat nicht geantwortet</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 did not report a tor version</source>
        <translation>%1 hat keine tor-Version gemeldet</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 is tor %2; OnionVoice needs tor %3 or newer</source>
        <translation>%1 ist tor %2; OnionVoice braucht tor %3 oder neuer</translation>
    </message>
    <message>
        <location filename="../../core/tor/TorLauncher.cpp" line="+18"/>
        <source>cannot create %1</source>
        <translation>%1 kann nicht angelegt werden</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>cannot create a directory for tor&apos;s SOCKS socket: %1</source>
        <translation>kein Verzeichnis für den SOCKS-Socket von tor anlegbar: %1</translation>
    </message>
    <message>
        <location line="+52"/>
        <source>tor did not answer on its control port within %1 s</source>
        <translation>tor hat auf seinem Steuerport nicht innerhalb von %1 s geantwortet</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>tor did not open its control port within %1 s</source>
        <translation>tor hat seinen Steuerport nicht innerhalb von %1 s geöffnet</translation>
    </message>
    <message>
        <location line="+52"/>
        <source>cannot read tor&apos;s control cookie: %1</source>
        <translation>das Steuer-Cookie von tor ist nicht lesbar: %1</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>the control port did not prove that it is our tor (SAFECOOKIE challenge failed)</source>
        <translation>der Steuerport hat nicht bewiesen, dass er unser tor ist (SAFECOOKIE-Prüfung fehlgeschlagen)</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>tor refused authentication: %1</source>
        <translation>tor hat die Anmeldung abgelehnt: %1</translation>
    </message>
    <message>
        <location line="+108"/>
        <source>tor was killed or crashed</source>
        <translation>tor wurde beendet oder ist abgestürzt</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>tor exited with code %1</source>
        <translation>tor hat sich mit Code %1 beendet</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 (tor said: %2)</source>
        <translation>%1 (tor meldete: %2)</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>tor failed %1 times in a row; last failure: %2</source>
        <translation>tor ist %1-mal in Folge ausgefallen; zuletzt: %2</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::CallWindow</name>
    <message>
        <location filename="../CallWindow.cpp" line="+24"/>
        <location line="+37"/>
        <source>&amp;Mute</source>
        <translation>&amp;Stumm</translation>
    </message>
    <message>
        <location line="-36"/>
        <source>&amp;Hang up</source>
        <translation>&amp;Auflegen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Close</source>
        <translation>S&amp;chließen</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Call — OnionVoice</source>
        <translation>Gespräch — OnionVoice</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Stop sending your voice (the other side hears silence)</source>
        <translation>Ihre Stimme nicht mehr senden (die Gegenseite hört Stille)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>End the call</source>
        <translation>Das Gespräch beenden</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Un&amp;mute</source>
        <translation>&amp;Ton an</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Close this window</source>
        <translation>Dieses Fenster schließen</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Call with %1 — OnionVoice</source>
        <translation>Gespräch mit %1 — OnionVoice</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Calling… (opening Tor links)</source>
        <translation>Rufe an… (öffne Tor-Verbindungen)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Ringing…</source>
        <translation>Es klingelt…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>In call</source>
        <translation>Im Gespräch</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Call ended: %1</source>
        <translation>Gespräch beendet: %1</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::ContactListPanel</name>
    <message>
        <location filename="../ContactListPanel.cpp" line="+31"/>
        <source>&amp;Add</source>
        <translation>Hin&amp;zufügen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>From QR &amp;image…</source>
        <translation>Aus QR-&amp;Bild…</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;Call</source>
        <translation>&amp;Anrufen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Re&amp;name…</source>
        <translation>&amp;Umbenennen…</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+282"/>
        <source>B&amp;lock</source>
        <translation>&amp;Sperren</translation>
    </message>
    <message>
        <location line="-281"/>
        <source>Re&amp;move…</source>
        <translation>Ent&amp;fernen…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Their ID or onionvoice: link</source>
        <translation>Deren ID oder onionvoice:-Link</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Paste the ID or contact link someone gave you</source>
        <translation>Fügen Sie die ID oder den Kontaktlink ein, den Ihnen jemand gegeben hat</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Their ID or contact link</source>
        <translation>Deren ID oder Kontaktlink</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Name (optional)</source>
        <translation>Name (optional)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Name for the new contact</source>
        <translation>Name für den neuen Kontakt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Add this person to your contacts</source>
        <translation>Diese Person zu Ihren Kontakten hinzufügen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Read a contact link from a picture of a QR code</source>
        <translation>Einen Kontaktlink aus dem Bild eines QR-Codes lesen</translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+2"/>
        <source>Search contacts</source>
        <translation>Kontakte durchsuchen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Contacts</source>
        <translation>Kontakte</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Double-click a contact to call</source>
        <translation>Doppelklick auf einen Kontakt ruft ihn an</translation>
    </message>
    <message>
        <location line="+232"/>
        <source>Call the selected contact</source>
        <translation>Den ausgewählten Kontakt anrufen</translation>
    </message>
    <message>
        <location line="-228"/>
        <source>A blocked contact&apos;s calls are refused without ringing</source>
        <translation>Anrufe eines gesperrten Kontakts werden ohne Klingeln abgewiesen</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>&lt;b&gt;Add a contact&lt;/b&gt; — paste &lt;i&gt;their&lt;/i&gt; ID or link</source>
        <translation>&lt;b&gt;Kontakt hinzufügen&lt;/b&gt; — fügen Sie &lt;i&gt;deren&lt;/i&gt; ID oder Link ein</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>&lt;b&gt;Contacts&lt;/b&gt;</source>
        <translation>&lt;b&gt;Kontakte&lt;/b&gt;</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>(no name)</source>
        <translation>(kein Name)</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>blocked</source>
        <translation>gesperrt</translation>
    </message>
    <message>
        <location line="+71"/>
        <source>Paste the ID or the onionvoice: link of the person you want to add.</source>
        <translation>Fügen Sie die ID oder den onionvoice:-Link der Person ein, die Sie hinzufügen möchten.</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Picture of a QR code</source>
        <translation>Bild eines QR-Codes</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Images (*.png *.jpg *.jpeg *.bmp *.gif)</source>
        <translation>Bilder (*.png *.jpg *.jpeg *.bmp *.gif)</translation>
    </message>
    <message>
        <location line="+41"/>
        <source>Tor is not connected yet: calls can start once it is</source>
        <translation>Tor ist noch nicht verbunden: Anrufe sind möglich, sobald es verbunden ist</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Tor could not start: calls can start once it runs (see Tor, below the ID)</source>
        <translation>Tor konnte nicht starten: Anrufe sind möglich, sobald es läuft (siehe Tor, unter der ID)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>A call is under way: hang it up first</source>
        <translation>Ein Anruf läuft: Legen Sie zuerst auf</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Unb&amp;lock</source>
        <translation>&amp;Entsperren</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Rename contact</source>
        <translation>Kontakt umbenennen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Name:</source>
        <translation>Name:</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Remove %1 from your contacts? The block goes too: %1 can ring you again.</source>
        <translation>%1 aus Ihren Kontakten entfernen? Die Sperre entfällt mit: %1 kann Sie wieder anrufen.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Remove contact</source>
        <translation>Kontakt entfernen</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>Remove %1 from your contacts?</source>
        <translation>%1 aus Ihren Kontakten entfernen?</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::DelayChart</name>
    <message>
        <location filename="../DelayChart.cpp" line="+23"/>
        <source>Frame delay chart</source>
        <translation>Diagramm der Verzögerung</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Estimated one-way delay of the frames received, largest per quarter second; above the red line speech arrives too late for a natural conversation</source>
        <translation>Geschätzte Einweg-Verzögerung der empfangenen Frames, die größte je Viertelsekunde; oberhalb der roten Linie kommt Sprache zu spät für ein natürliches Gespräch an</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>frame delay</source>
        <translation>Frame-Verzögerung</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 ms budget</source>
        <translation>%1 ms Budget</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>seconds</source>
        <translation>Sekunden</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ms</source>
        <translation>ms</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::EngineHost</name>
    <message>
        <location filename="../EngineHost.cpp" line="+163"/>
        <source>%1 What was changed holds until OnionVoice quits.</source>
        <translation>%1 Die Änderung gilt nur, bis OnionVoice beendet wird.</translation>
    </message>
    <message>
        <location line="+16"/>
        <location line="+47"/>
        <source>No contact has the address %1.</source>
        <translation>Kein Kontakt hat die Adresse %1.</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::IdCard</name>
    <message>
        <location filename="../IdCard.cpp" line="+25"/>
        <source>Copy I&amp;D</source>
        <translation>ID &amp;kopieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Share…</source>
        <translation>&amp;Teilen…</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>&lt;b&gt;Your ID&lt;/b&gt;</source>
        <translation>&lt;b&gt;Ihre ID&lt;/b&gt;</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Give this to the people who should be able to call you.</source>
        <translation>Geben Sie diese den Menschen, die Sie anrufen können sollen.</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Your onion address, in groups of seven for reading aloud</source>
        <translation>Ihre Onion-Adresse, in Siebenergruppen zum Vorlesen</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+42"/>
        <source>(starting…)</source>
        <translation>(startet…)</translation>
    </message>
    <message>
        <location line="-40"/>
        <location line="+1"/>
        <source>Your contact link as a QR code</source>
        <translation>Ihr Kontaktlink als QR-Code</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Copy your address to the clipboard</source>
        <translation>Ihre Adresse in die Zwischenablage kopieren</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Copy your contact link to send it to someone</source>
        <translation>Ihren Kontaktlink kopieren, um ihn jemandem zu schicken</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Copy my contact link</source>
        <translation>Meinen Kontaktlink kopieren</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Copy a link with an access key for a contact…</source>
        <translation>Einen Link mit Zugangsschlüssel für einen Kontakt kopieren…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>In contacts-only mode only people holding a key can reach you</source>
        <translation>Im Nur-Kontakte-Modus erreichen Sie nur Menschen mit einem Schlüssel</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Your contact link</source>
        <translation>Ihr Kontaktlink</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Your ID</source>
        <translation>Ihre ID</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::IncomingCallDialog</name>
    <message>
        <location filename="../IncomingCallDialog.cpp" line="+19"/>
        <source>&amp;Accept</source>
        <translation>&amp;Annehmen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Reject</source>
        <translation>A&amp;blehnen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Block</source>
        <translation>&amp;Sperren</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Incoming call — OnionVoice</source>
        <translation>Eingehender Anruf — OnionVoice</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Answer the call</source>
        <translation>Den Anruf annehmen</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Decline this call; the caller is told it was rejected</source>
        <translation>Diesen Anruf ablehnen; der Anrufer erfährt, dass er abgelehnt wurde</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Decline and refuse every future call from this address</source>
        <translation>Ablehnen und jeden künftigen Anruf von dieser Adresse abweisen</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Incoming call</source>
        <translation>Eingehender Anruf</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Unknown caller</source>
        <translation>Unbekannter Anrufer</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A contact without a name</source>
        <translation>Ein Kontakt ohne Namen</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>verified ID: %1</source>
        <translation>geprüfte ID: %1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Sound problem: %1. Connect a microphone and a speaker before you answer: without them the call ends as it starts.</source>
        <translation>Tonproblem: %1. Schließen Sie ein Mikrofon und einen Lautsprecher an, bevor Sie annehmen: ohne sie endet der Anruf, sobald er beginnt.</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::LinkTableModel</name>
    <message>
        <location filename="../LinkTableModel.cpp" line="+17"/>
        <source>up</source>
        <translation>offen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>joining</source>
        <translation>verbindet</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>down</source>
        <translation>getrennt</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>first</source>
        <translation>erste</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>second</source>
        <translation>zweite</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>spare</source>
        <translation>Reserve</translation>
    </message>
    <message>
        <location line="+70"/>
        <source>The link&apos;s role in the scheduler: first and second carry audio, spares wait to replace a link that turns bad</source>
        <translation>Die Rolle der Verbindung im Scheduler: erste und zweite tragen Audio, Reserven warten darauf, eine schlecht gewordene Verbindung zu ersetzen</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Round-trip time of the link&apos;s Tor circuit</source>
        <translation>Umlaufzeit des Tor-Circuits der Verbindung</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>How much later this link delivers than the fastest link</source>
        <translation>Wie viel später diese Verbindung liefert als die schnellste</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>How often this slot&apos;s link broke and was replaced</source>
        <translation>Wie oft die Verbindung dieses Platzes abbrach und ersetzt wurde</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Link</source>
        <translation>Verbindung</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Role</source>
        <translation>Rolle</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>RTT ms</source>
        <translation>RTT ms</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Delay ms</source>
        <translation>Verzögerung ms</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Sent</source>
        <translation>Gesendet</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Received</source>
        <translation>Empfangen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Failures</source>
        <translation>Ausfälle</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Health</source>
        <translation>Güte</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::MainWindow</name>
    <message>
        <location filename="../MainWindow.cpp" line="+34"/>
        <location line="+77"/>
        <source>OnionVoice</source>
        <translation>OnionVoice</translation>
    </message>
    <message>
        <location line="-13"/>
        <source>Refused a call from %1: %2</source>
        <translation>Anruf von %1 abgewiesen: %2</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Copied a link with an access key. Send it only to that contact.</source>
        <translation>Link mit Zugangsschlüssel kopiert. Schicken Sie ihn nur diesem Kontakt.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 copied to the clipboard.</source>
        <translation>%1 in die Zwischenablage kopiert.</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The new access key is kept.</source>
        <translation>Der neue Zugangsschlüssel ist gespeichert.</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>&amp;OnionVoice</source>
        <translation>&amp;OnionVoice</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Settings…</source>
        <translation>&amp;Einstellungen…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Sound &amp;test…</source>
        <translation>&amp;Tontest…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;About OnionVoice</source>
        <translation>&amp;Über OnionVoice</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>About OnionVoice</source>
        <translation>Über OnionVoice</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&lt;b&gt;OnionVoice&lt;/b&gt;&lt;br&gt;Anonymous voice calls over Tor onion services. Each call runs over several Tor circuits at once.</source>
        <translation>&lt;b&gt;OnionVoice&lt;/b&gt;&lt;br&gt;Anonyme Sprachanrufe über Tor-Onion-Dienste. Jedes Gespräch läuft über mehrere Tor-Circuits zugleich.</translation>
    </message>
    <message>
        <location line="+104"/>
        <source>Missed call from %1 (%2)</source>
        <translation>Verpasster Anruf von %1 (%2)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Missed call</source>
        <translation>Verpasster Anruf</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Call ended: %1</source>
        <translation>Gespräch beendet: %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Call ended. %1</source>
        <translation>Gespräch beendet. %1</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>Incoming call</source>
        <translation>Eingehender Anruf</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 %2</source>
        <comment>caller&apos;s name, then the short ID</comment>
        <translation>%1 %2</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+6"/>
        <source>Share with an access key</source>
        <translation>Mit Zugangsschlüssel teilen</translation>
    </message>
    <message>
        <location line="-5"/>
        <source>Add the person as a contact first: an access key is made for one contact.</source>
        <translation>Fügen Sie die Person zuerst als Kontakt hinzu: ein Zugangsschlüssel gilt für einen Kontakt.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Make an access key for (in contacts-only mode, only people holding a key can reach you; the key works at once):</source>
        <translation>Zugangsschlüssel erstellen für (im Nur-Kontakte-Modus erreichen Sie nur Menschen mit einem Schlüssel; der Schlüssel gilt sofort):</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::QualityDashboard</name>
    <message>
        <location filename="../QualityDashboard.cpp" line="+25"/>
        <source>Quality:</source>
        <translation>Qualität:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Estimated mean opinion score (1–5) and E-model R: good from R 80, fair from R 60, poor below</source>
        <translation>Geschätzter Mean Opinion Score (1–5) und E-Modell-R: gut ab R 80, mittel ab R 60, darunter schlecht</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Trouble:</source>
        <translation>Probleme:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Whether the network or the other side is the problem</source>
        <translation>Ob das Netz oder die Gegenseite das Problem ist</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Delay:</source>
        <translation>Verzögerung:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Estimated one-way network delay of the frames, median and 99th percentile over the last 30 seconds</source>
        <translation>Geschätzte Einweg-Netzverzögerung der Frames, Median und 99. Perzentil der letzten 30 Sekunden</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Jitter buffer:</source>
        <translation>Jitterpuffer:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>How long frames wait before they are played: the target the buffer aims for and what it holds now</source>
        <translation>Wie lange Frames warten, bevor sie abgespielt werden: das Ziel des Puffers und was er gerade hält</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Late / lost / concealed:</source>
        <translation>Zu spät / verloren / verdeckt:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Frames that came too late, frames that never came, and how much audio was made up to hide them</source>
        <translation>Frames, die zu spät kamen, Frames, die nie kamen, und wie viel Audio zum Überdecken erzeugt wurde</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Tor cells:</source>
        <translation>Tor-Zellen:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tor cells this call sends per second (one per record)</source>
        <translation>Tor-Zellen, die dieses Gespräch pro Sekunde sendet (eine je Record)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Links:</source>
        <translation>Verbindungen:</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Tor circuits carrying this call</source>
        <translation>Tor-Circuits, die dieses Gespräch tragen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Security preset:</source>
        <translation>Sicherheitsstufe:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The security preset in force for this call</source>
        <translation>Die für dieses Gespräch geltende Sicherheitsstufe</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Tor links of the call</source>
        <translation>Tor-Verbindungen des Gesprächs</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Each Tor link of the call; green is healthy, yellow slow, red bad, grey down</source>
        <translation>Jede Tor-Verbindung des Gesprächs; grün ist gesund, gelb langsam, rot schlecht, grau getrennt</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>&lt;b style=&quot;color:%1&quot;&gt;%2&lt;/b&gt; — MOS %L3, R %L4</source>
        <translation>&lt;b style=&quot;color:%1&quot;&gt;%2&lt;/b&gt; — MOS %L3, R %L4</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%L1 ms median, %L2 ms p99 (budget %L3 ms)</source>
        <translation>%L1 ms Median, %L2 ms p99 (Budget %L3 ms)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>target %L1 ms, holding %L2 ms</source>
        <translation>Ziel %L1 ms, hält %L2 ms</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%L1 late, %L2 lost, %L3 ms concealed</source>
        <translation>%L1 zu spät, %L2 verloren, %L3 ms verdeckt</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%L1 per second</source>
        <translation>%L1 pro Sekunde</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 of %2 open</source>
        <translation>%1 von %2 offen</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::SettingsDialog</name>
    <message>
        <location filename="../SettingsDialog.cpp" line="+29"/>
        <source>Standard</source>
        <translation>Standard</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>More guards</source>
        <translation>Mehr Guards</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>One-way hotline</source>
        <translation>Einweg-Hotline</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>System default</source>
        <translation>Systemstandard</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>%1 (not connected)</source>
        <translation>%1 (nicht angeschlossen)</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Settings — OnionVoice</source>
        <translation>Einstellungen — OnionVoice</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Only contacts holding an access key can reach me</source>
        <translation>Nur Kontakte mit Zugangsschlüssel können mich erreichen</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Tor itself refuses everyone else: your ID alone is not enough to reach you</source>
        <translation>Tor selbst weist alle anderen ab: Ihre ID allein reicht nicht, um Sie zu erreichen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Refuse calls from people not in my contacts</source>
        <translation>Anrufe von Menschen außerhalb meiner Kontakte abweisen</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Sound &amp;test…</source>
        <translation>&amp;Tontest…</translation>
    </message>
    <message>
        <location line="+13"/>
        <source> bit/s</source>
        <translation> bit/s</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>How audio is spread over the call&apos;s Tor links</source>
        <translation>Wie Audio auf die Tor-Verbindungen des Gesprächs verteilt wird</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Tor circuits each call opens</source>
        <translation>Tor-Circuits, die jedes Gespräch öffnet</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Connect to Tor through bridges</source>
        <translation>Über Bridges mit Tor verbinden</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>One bridge per line, e.g.
obfs4 192.0.2.1:443 FINGERPRINT cert=… iat-mode=0</source>
        <translation>Eine Bridge pro Zeile, z. B.
obfs4 192.0.2.1:443 FINGERPRINT cert=… iat-mode=0</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Bridge lines</source>
        <translation>Bridge-Zeilen</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>%1: %2. snowflake: %3.</source>
        <translation>%1: %2. snowflake: %3.</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+2"/>
        <source>not installed</source>
        <translation>nicht installiert</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Automatic (bundled tor, then the system&apos;s)</source>
        <translation>Automatisch (mitgeliefertes tor, dann das des Systems)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bro&amp;wse…</source>
        <translation>&amp;Durchsuchen…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>tor executable</source>
        <translation>tor-Programm</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Security</source>
        <translation>Sicherheit</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Preset:</source>
        <translation>&amp;Stufe:</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Audio</source>
        <translation>Audio</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Microphone:</source>
        <translation>&amp;Mikrofon:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Speaker:</source>
        <translation>&amp;Lautsprecher:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Advanced</source>
        <translation>Erweitert</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Bitrate:</source>
        <translation>&amp;Bitrate:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Scheduling p&amp;olicy:</source>
        <translation>Scheduling-St&amp;rategie:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Links per call:</source>
        <translation>&amp;Verbindungen pro Gespräch:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tor</source>
        <translation>Tor</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>tor &amp;executable:</source>
        <translation>tor-&amp;Programm:</translation>
    </message>
    <message>
        <location line="+88"/>
        <source>Add at least one bridge line, or turn bridges off.</source>
        <translation>Fügen Sie mindestens eine Bridge-Zeile hinzu oder schalten Sie Bridges aus.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>webtunnel bridges need lyrebird, which is not installed (obfs4proxy cannot run them). Install lyrebird, or use another bridge.</source>
        <translation>webtunnel-Bridges brauchen lyrebird, das nicht installiert ist (obfs4proxy kann sie nicht betreiben). Installieren Sie lyrebird oder verwenden Sie eine andere Bridge.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 bridges need obfs4proxy (or lyrebird), which is not installed. Install the obfs4proxy package, or use another bridge.</source>
        <translation>%1-Bridges brauchen obfs4proxy (oder lyrebird), das nicht installiert ist. Installieren Sie das Paket obfs4proxy oder verwenden Sie eine andere Bridge.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>&quot;%1&quot; is not a bridge line OnionVoice can use (obfs4, meek_lite, webtunnel, snowflake, or address:port fingerprint).</source>
        <translation>„%1“ ist keine Bridge-Zeile, die OnionVoice verwenden kann (obfs4, meek_lite, webtunnel, snowflake oder Adresse:Port Fingerprint).</translation>
    </message>
    <message>
        <location line="-4"/>
        <source>snowflake bridges need snowflake-client, which is not installed. Install the snowflake-client package, or use another bridge.</source>
        <translation>snowflake-Bridges brauchen snowflake-client, das nicht installiert ist. Installieren Sie das Paket snowflake-client oder verwenden Sie eine andere Bridge.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>A bridge line cannot contain line breaks.</source>
        <translation>Eine Bridge-Zeile darf keine Zeilenumbrüche enthalten.</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>The one-way hotline cannot be limited to contacts: choose one of the two.</source>
        <translation>Die Einweg-Hotline lässt sich nicht auf Kontakte beschränken: wählen Sie eines von beiden.</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::SoundTestDialog</name>
    <message>
        <location filename="../SoundTestDialog.cpp" line="+23"/>
        <source>&amp;Record 5 seconds and play them back</source>
        <translation>5 Sekunden &amp;aufnehmen und abspielen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Record 5 seconds and hear them through a &amp;Tor path</source>
        <translation>5 Sekunden aufnehmen und über einen &amp;Tor-Pfad hören</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Sound test — OnionVoice</source>
        <translation>Tontest — OnionVoice</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>How loud the microphone hears you; speak and it should move</source>
        <translation>Wie laut das Mikrofon Sie hört; sprechen Sie, dann bewegt sich die Anzeige</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Microphone level</source>
        <translation>Mikrofonpegel</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Say something; you hear it back from the speaker</source>
        <translation>Sagen Sie etwas; Sie hören es aus dem Lautsprecher zurück</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>a calm path</source>
        <translation>ein ruhiger Pfad</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a typical path</source>
        <translation>ein typischer Pfad</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a congested path</source>
        <translation>ein überlasteter Pfad</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a hostile path</source>
        <translation>ein feindseliger Pfad</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>A generated Tor link trace of this kind: the recording goes through the call&apos;s own pipeline and scheduler over twelve such links</source>
        <translation>Ein erzeugter Tor-Verbindungsverlauf dieser Art: die Aufnahme läuft durch die Verarbeitung und den Scheduler des Gesprächs über zwölf solche Verbindungen</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Microphone level:</source>
        <translation>Mikrofonpegel:</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>The sound devices could not be opened: %1</source>
        <translation>Die Audiogeräte konnten nicht geöffnet werden: %1</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Speak: the bar shows your microphone&apos;s level.</source>
        <translation>Sprechen Sie: der Balken zeigt den Pegel Ihres Mikrofons.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Recording… say a sentence.</source>
        <translation>Nehme auf… sagen Sie einen Satz.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Sending it through the simulated Tor path…</source>
        <translation>Sende es durch den simulierten Tor-Pfad…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Playing back what was recorded…</source>
        <translation>Spiele die Aufnahme ab…</translation>
    </message>
</context>
<context>
    <name>onionvoice::ui::TorStatusPanel</name>
    <message>
        <location filename="../TorStatusPanel.cpp" line="+25"/>
        <source>&amp;Retry</source>
        <translation>E&amp;rneut versuchen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Use &amp;bridges…</source>
        <translation>Bridges &amp;verwenden…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Show &amp;tor&apos;s messages</source>
        <translation>&amp;Meldungen von tor zeigen</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>How far tor has got connecting to the Tor network</source>
        <translation>Wie weit tor mit der Verbindung zum Tor-Netz ist</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tor&apos;s progress</source>
        <translation>Fortschritt von Tor</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Stop tor and start it again</source>
        <translation>tor beenden und neu starten</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Bridges are unlisted Tor relays that help where Tor is blocked</source>
        <translation>Bridges sind nicht gelistete Tor-Relays, die helfen, wo Tor blockiert ist</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>What tor itself reports, newest last</source>
        <translation>Was tor selbst meldet, das Neueste zuletzt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Tor&apos;s messages</source>
        <translation>Meldungen von tor</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>&lt;b&gt;Tor&lt;/b&gt;</source>
        <translation>&lt;b&gt;Tor&lt;/b&gt;</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Tor is not running.</source>
        <translation>Tor läuft nicht.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Starting tor…</source>
        <translation>Starte tor…</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Connecting to the Tor network (%1 %)</source>
        <translation>Verbinde mit dem Tor-Netz (%1 %)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Connecting to the Tor network: %1 (%2 %)</source>
        <translation>Verbinde mit dem Tor-Netz: %1 (%2 %)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Connected to the Tor network.</source>
        <translation>Mit dem Tor-Netz verbunden.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Tor stopped working.</source>
        <translation>Tor funktioniert nicht mehr.</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Your ID is offline while tor is not working.</source>
        <translation>Ihre ID ist offline, solange tor nicht funktioniert.</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Your ID is not online yet.</source>
        <translation>Ihre ID ist noch nicht online.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Putting your ID online…</source>
        <translation>Bringe Ihre ID online…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Your ID is online: people can call you.</source>
        <translation>Ihre ID ist online: man kann Sie anrufen.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Your ID could not be put online.</source>
        <translation>Ihre ID konnte nicht online gebracht werden.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Nobody can reach you yet: contacts-only mode needs at least one contact with an access key. Use Share → &quot;Copy a link with an access key for a contact…&quot; and send that link to them.</source>
        <translation>Noch kann Sie niemand erreichen: Der Nur-Kontakte-Modus braucht mindestens einen Kontakt mit Zugangsschlüssel. Wählen Sie Teilen → „Einen Link mit Zugangsschlüssel für einen Kontakt kopieren…“ und schicken Sie diesen Link an den Kontakt.</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>Tor could not start or connect: %1</source>
        <translation>Tor konnte nicht starten oder sich nicht verbinden: %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Connecting is taking longer than it should. This network may be offline or block Tor. Check the connection, look at tor&apos;s messages, or try bridges.</source>
        <translation>Die Verbindung dauert länger als sie sollte. Dieses Netz ist vielleicht offline oder blockiert Tor. Prüfen Sie die Verbindung, sehen Sie sich die Meldungen von tor an oder versuchen Sie Bridges.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Tor stopped working and is being started again: %1. Calls work again once it has reconnected.</source>
        <translation>Tor funktionierte nicht mehr und wird neu gestartet: %1. Anrufe gehen wieder, sobald es neu verbunden ist.</translation>
    </message>
</context>
</TS>
